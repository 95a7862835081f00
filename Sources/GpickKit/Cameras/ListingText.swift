import FoundationEssentials
import Glibc
import GpickBase

/// The text of a listing users paste (`v4l2-ctl` output): a file, or standard input for `-`
/// (`v4l2-ctl --list-formats-ext | gpick devices --formats -`). At most 4 MiB: a listing is a
/// few kilobytes.
public enum ListingText {
    static let limit = 4 << 20

    public static func read(_ path: String) throws(GpickError) -> String {
        if path == "-" { return try readStandardInput() }
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw GpickError(.input, errno == EACCES ? "permission denied: cannot read \(path)" : "no such file: \(path)")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw GpickError(.input, "\(path) is not a regular file") }
        guard st.st_size <= limit else { throw GpickError(.input, "\(path) is too large for a listing (over 4 MiB)") }
        guard let data = FileManager.default.contents(atPath: path) else { throw GpickError(.input, "permission denied: cannot read \(path)") }
        return String(decoding: data, as: UTF8.self)
    }

    static func readStandardInput() throws(GpickError) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw GpickError(.input, "cannot read standard input: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            bytes += chunk.prefix(n)
            guard bytes.count <= limit else { throw GpickError(.input, "standard input is too large for a listing (over 4 MiB)") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
