import CGLib
import GpickBase
import Glibc

/// SHA-256 of a file's content, through GLib's GChecksum, streamed in fixed chunks (memory does
/// not grow with the file). Blocking: call it off Swift's cooperative pool.
public enum ContentHash {
    /// The chunk every read takes: large enough for sequential speed, small enough to not matter.
    static let chunk = 1 << 20

    /// The SHA-256 of the file at `path`, as 64 lowercase hex digits.
    public static func sha256(path: String) throws(GpickError) -> String {
        let fd = try openForReading(path)
        defer { close(fd) }
        return try sha256(fd: fd, path: path)
    }

    /// The SHA-256 of everything in `fd` (read with pread from the start; the offset is unused).
    public static func sha256(fd: Int32, path: String) throws(GpickError) -> String {
        let sum = Checksum()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: off_t = 0
        while true {
            let n = try readChunk(fd, into: buffer, at: offset, path: path)
            if n == 0 { break }
            sum.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += off_t(n)
        }
        return sum.hex
    }

    /// The SHA-256 of bytes in memory (a URL's body).
    public static func sha256(bytes: [UInt8]) -> String {
        let sum = Checksum()
        bytes.withUnsafeBytes { sum.update($0) }
        return sum.hex
    }

    /// The raw 32-byte SHA-256 of bytes in memory (for base64 forms, as a CSP hash source).
    public static func sha256Digest(bytes: [UInt8]) -> [UInt8] {
        let sum = Checksum()
        bytes.withUnsafeBytes { sum.update($0) }
        return sum.digest
    }

    /// Opens a file to read it whole: O_NONBLOCK so that a FIFO cannot hang us (regular files
    /// ignore it). Errors in the user's terms, naming the path.
    static func openForReading(_ path: String) throws(GpickError) -> Int32 {
        var code: Int32 = 0
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 { code = errno }
        guard fd >= 0 else { throw readError(code, path) }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        return fd
    }

    /// One pread of up to the buffer's size at `offset`: 0 at the end of the file.
    static func readChunk(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: off_t, path: String) throws(GpickError) -> Int {
        while true {
            let n = pread(fd, buffer.baseAddress, buffer.count, offset)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw readError(errno, path)
        }
    }

    static func readError(_ code: Int32, _ path: String) -> GpickError {
        switch code {
        case ENOENT, ENOTDIR: GpickError(.input, "no such file: \(path)")
        case EACCES, EPERM: GpickError(.input, "permission denied: cannot read \(path)")
        case EISDIR: GpickError(.input, "\(path) is a folder, not a photo or video")
        case EIO: GpickError(.input, "input/output error reading \(path)")
        default: GpickError(.input, "cannot read \(path): \(String(cString: strerror(code)))")
        }
    }
}

/// A running SHA-256 (GLib's GChecksum), freed with its owner.
final class Checksum {
    private let sum: OpaquePointer

    init() { sum = g_checksum_new(G_CHECKSUM_SHA256) }
    deinit { g_checksum_free(sum) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        g_checksum_update(sum, base.assumingMemoryBound(to: guchar.self), gssize(bytes.count))
    }

    /// Lowercase hex; GLib keeps the string, which is copied here.
    var hex: String { String(cString: g_checksum_get_string(sum)) }

    /// The digest's bytes (SHA-256: 32).
    var digest: [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(g_checksum_type_get_length(G_CHECKSUM_SHA256)))
        var length = gsize(out.count)
        g_checksum_get_digest(sum, &out, &length)
        return Array(out.prefix(Int(length)))
    }
}
