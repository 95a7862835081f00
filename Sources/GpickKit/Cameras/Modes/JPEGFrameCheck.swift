/// Whether an MJPEG frame from a webcam is whole, checked before it is decoded. USB cameras
/// send frames cut short (a transfer that ended early), frames without their end marker, and
/// frames whose data was damaged on the way; libjpeg-turbo decodes all of them without an error
/// (grey where data is missing, smears where bits flipped), so a viewer or a recording would
/// show them. The check reads only the markers: a frame must start with SOI, carry well-formed
/// segments up to an image scan (SOS), hold no stray marker inside its entropy-coded data, and
/// end with EOI (padding of zero bytes after it is allowed, as some cameras send). The coded data
/// of a baseline frame is then walked code by code (`JPEGScanWalk`): a bit flipped in a Huffman
/// code is seen there. One flipped in a coefficient's value is not: only the picture shows it.
/// Where the decoder finds damaged codes itself as it decodes (gpickjpegdec), the walk is left
/// to it (`walkCodes: false`) and only the markers are read here.
public enum JPEGFrameCheck {
    public enum Problem: String, Sendable, Equatable {
        /// Not a JPEG at its start (a frame that begins mid-stream).
        case noStart = "no start marker"
        /// A segment runs past the end, or the scan ends before EOI: the frame was cut short.
        case truncated = "cut short"
        /// Everything there but the end marker.
        case noEnd = "no end marker"
        /// Markers but no image scan (a UVC frame carrying only H.264 or YUY2 in APP4).
        case noScan = "no image data"
        /// A marker that cannot be there, inside the coded data or among the segments.
        case damaged = "damaged data"
        /// Coded data out of step with its tables: a code no table has, too many coefficients in
        /// a block, or more or fewer blocks than the frame holds (bits flipped on the way).
        case corrupt = "corrupt coded data"
    }

    /// nil for a whole frame, else what is wrong with it.
    public static func problem(_ b: UnsafeRawBufferPointer, walkCodes: Bool = true) -> Problem? {
        let n = b.count
        guard n >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return .noStart }
        // The end: EOI, then nothing but zero padding.
        var end = n
        while end > 2, b[end - 1] == 0 { end -= 1 }
        let hasEnd = end >= 4 && b[end - 2] == 0xFF && b[end - 1] == 0xD9
        var i = 2
        var sawScan = false
        var walk = JPEGScanWalk()
        while i < end {
            // Segments: FF, a marker byte (fill bytes FF may come first), and for most a length.
            guard b[i] == 0xFF else { return .damaged }
            var m = i + 1
            while m < end, b[m] == 0xFF { m += 1 }
            guard m < end else { return .truncated }
            let marker = b[m]
            i = m + 1
            switch marker {
            case 0xD9:
                // EOI: the frame ends here, after at least one scan.
                guard sawScan else { return .noScan }
                return i == end ? nil : .damaged
            case 0x01, 0xD0...0xD7:
                continue  // standalone markers
            case 0x00:
                return .damaged
            default:
                guard i + 2 <= end else { return .truncated }
                let length = Int(b[i]) << 8 | Int(b[i + 1])
                guard length >= 2 else { return .damaged }
                guard i + length <= end else { return hasEnd ? .damaged : .truncated }
                let header = i
                i += length
                switch marker {
                case 0xC4: guard walk.huffmanTables(b, at: header, length: length) else { return .damaged }
                case 0xDD: if length >= 4 { walk.restartInterval = Int(b[header + 2]) << 8 | Int(b[header + 3]) }
                case 0xC0...0xCF where marker != 0xC8 && marker != 0xCC:
                    walk.frameHeader(b, at: header, length: length, marker: marker)
                default: break
                }
                guard marker == 0xDA else { continue }
                if !walkCodes { walk.walkable = false }
                // SOS: entropy-coded data follows, in which FF is followed only by 00 (a stuffed
                // byte) or a restart marker, up to the next marker.
                sawScan = true
                while i < end {
                    if b[i] != 0xFF { i += 1; continue }
                    guard i + 1 < end else { return hasEnd ? .damaged : .truncated }
                    let next = b[i + 1]
                    if next == 0x00 || (0xD0...0xD7).contains(next) { i += 2; continue }
                    if next == 0xFF { i += 1; continue }
                    break  // a marker: the scan is over
                }
                guard i < end, length >= 3, header + 2 + 2 * Int(b[header + 2]) < header + length else { continue }
                if !walk.scanIsWhole(b, header: header, data: header + length, end: i) { return .corrupt }
            }
        }
        if !sawScan { return hasEnd ? .noScan : .truncated }
        return hasEnd ? .damaged : .noEnd
    }

    public static func problem(_ bytes: [UInt8], walkCodes: Bool = true) -> Problem? {
        bytes.withUnsafeBytes { problem($0, walkCodes: walkCodes) }
    }
}
