/// Decompression bombs for the tests: headers that claim far more pixels than the file holds.
public enum ImageBombs {
    /// `jpeg` with its frame header (SOF) claiming `width`×`height`, its data left as it was.
    public static func claimingSize(_ jpeg: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        var b = jpeg
        var i = 2
        while i + 9 < b.count, b[i] == 0xFF {
            let marker = b[i + 1], length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xC2).contains(marker) {
                b[i + 5] = UInt8(height >> 8)
                b[i + 6] = UInt8(height & 0xFF)
                b[i + 7] = UInt8(width >> 8)
                b[i + 8] = UInt8(width & 0xFF)
                return b
            }
            i += 2 + length
        }
        throw TestFailure("no SOF in the JPEG")
    }
}
