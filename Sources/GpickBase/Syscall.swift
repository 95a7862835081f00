import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The one funnel for libc calls: a failed call (−1) becomes a `GpickError` naming the operation,
/// the path and the errno text.
@discardableResult
package func sys(_ what: String, _ path: String, kind: GpickError.Kind = .output, _ call: () -> Int32) throws(GpickError) -> Int32 {
    var r: Int32
    repeat { r = call() } while r == -1 && errno == EINTR
    guard r != -1 else { throw SyscallError.error(errno: errno, what, path, kind: kind) }
    return r
}

package enum SyscallError {
    package static func error(errno code: Int32, _ what: String, _ path: String, kind: GpickError.Kind = .output) -> GpickError {
        switch code {
        case ENOSPC: return GpickError(.output, "no space left on device writing \(path)")
        case EDQUOT: return GpickError(.output, "disk quota exceeded writing \(path)")
        case EACCES, EPERM: return GpickError(.output, "permission denied: cannot \(what) \(path)")
        case EROFS: return GpickError(.output, "read-only file system: cannot \(what) \(path)")
        case ENOENT: return GpickError(.output, "no such file or directory: \(path)")
        case EISDIR: return GpickError(.output, "\(path) is a directory")
        case ENAMETOOLONG: return GpickError(.output, "file name too long: \(path)")
        default: return GpickError(kind, "cannot \(what) \(path): \(String(cString: strerror(code)))")
        }
    }
}

/// What `stat` says of `path` (following symlinks), or nil when nothing is there: a question,
/// not a failure, so no error.
public func fileStatus(_ path: String) -> stat? {
    var st = stat()
    return stat(path, &st) == 0 ? st : nil
}

/// Whether `path` is a directory (following symlinks); nil when nothing is there.
public func isDirectory(_ path: String) -> Bool? {
    fileStatus(path).map { ($0.st_mode & S_IFMT) == S_IFDIR }
}

/// Writes all bytes to an fd (looping over short writes).
public func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(GpickError) {
    var off = 0
    while off < bytes.count {
        let n = try sys("write", path) { Int32(truncatingIfNeeded: write(fd, bytes.baseAddress! + off, bytes.count - off)) }
        off += Int(n)
    }
}

/// The process umask, read without changing it for long.
package let processUmask: mode_t = {
    let m = umask(0o022)
    umask(m)
    return m
}()
