/// ISO base media file boxes (MP4, HEIF) written by tests: a box, big-endian integers.
public enum ISOBox {
    /// A box of `type` around `payload`; `large`: with a 64-bit size, as some phones write it.
    public static func box(_ type: String, _ payload: [UInt8], large: Bool = false) -> [UInt8] {
        if large { return be32(1) + Array(type.utf8) + be64(UInt64(payload.count + 16)) + payload }
        return be32(UInt32(payload.count + 8)) + Array(type.utf8) + payload
    }

    public static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    public static func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }
}
