import FoundationEssentials
import GpickBase
import Glibc

/// Random access to a file's bytes without reading all of it: metadata readers ask for headers
/// only, so a scan of thousands of files costs a few small reads each.
public protocol ByteSource: Sendable {
    var size: Int { get }
    /// Up to `count` bytes at `offset`; fewer at the end of the data, none past it.
    func read(at offset: Int, count: Int) throws(GpickError) -> [UInt8]
}

/// A file read with `pread` (no shared file position, so one `FileBytes` may serve many threads).
public final class FileBytes: ByteSource {
    public let path: String
    public let size: Int
    private let fd: Int32
    private let ownsFD: Bool

    public init(path: String) throws(GpickError) {
        var code: Int32 = 0
        // O_NONBLOCK: opening a FIFO must not hang the scanner; regular files ignore it.
        let fd: Int32
        do {
            fd = try sys("open", path, kind: .input) {
                let r = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
                if r < 0 { code = errno }
                return r
            }
        } catch { throw FileBytes.readError(code, path) }
        do {
            size = try FileBytes.regularFileSize(fd, path)
        } catch {
            close(fd)
            throw error
        }
        self.path = path
        self.fd = fd
        ownsFD = true
    }

    /// Reads through an fd the caller keeps (and closes).
    public init(fd: Int32, path: String) throws(GpickError) {
        size = try FileBytes.regularFileSize(fd, path)
        self.path = path
        self.fd = fd
        ownsFD = false
    }

    deinit {
        if ownsFD { close(fd) }
    }

    public func read(at offset: Int, count: Int) throws(GpickError) -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        let want = min(count, size - offset)  // the file's size bounds the allocation
        var out = [UInt8](repeating: 0, count: want)
        var got = 0, code: Int32 = 0
        let fd = fd
        while got < want {
            let n: Int32
            do {
                n = try out.withUnsafeMutableBytes { (b: UnsafeMutableRawBufferPointer) throws(GpickError) -> Int32 in
                    try sys("read", path, kind: .input) {
                        let r = pread(fd, b.baseAddress! + got, min(want - got, 1 << 30), off_t(offset + got))
                        if r < 0 { code = errno }
                        return Int32(truncatingIfNeeded: r)
                    }
                }
            } catch { throw FileBytes.readError(code, path) }
            if n == 0 { break }  // the file shrank since fstat
            got += Int(n)
        }
        if got < want { out.removeSubrange(got...) }
        return out
    }

    private static func regularFileSize(_ fd: Int32, _ path: String) throws(GpickError) -> Int {
        var st = stat(), code: Int32 = 0
        do {
            try sys("read", path, kind: .input) {
                let r = fstat(fd, &st)
                if r < 0 { code = errno }
                return r
            }
        } catch { throw readError(code, path) }
        let type = st.st_mode & S_IFMT
        if type == S_IFDIR { throw GpickError(.input, "cannot read \(path): it is a directory") }
        guard type == S_IFREG else { throw GpickError(.input, "cannot read \(path): not a regular file") }
        return Int(st.st_size)
    }

    /// "cannot read /x/y.jpg: permission denied": the path first, then why, in the user's words.
    static func readError(_ code: Int32, _ path: String) -> GpickError {
        let why: String
        switch code {
        case EACCES, EPERM: why = "permission denied"
        case ENOENT: why = "no such file or directory"
        case ENOTDIR: why = "a parent of it is not a directory"
        case EISDIR: why = "it is a directory"
        case ENAMETOOLONG: why = "the name is too long"
        case ELOOP: why = "too many symbolic links"
        case EMFILE, ENFILE: why = "too many open files"
        case EIO: why = "input/output error (a failing disk or network share?)"
        case 0: why = "unknown error"
        default: why = String(cString: strerror(code))
        }
        return GpickError(.input, "cannot read \(path): \(why)")
    }
}

/// Bytes already in memory (a test's fixture, or a segment a reader has cut out of a file).
public struct MemoryBytes: ByteSource {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public var size: Int { bytes.count }
    public func read(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0, offset < bytes.count else { return [] }
        return Array(bytes[offset..<(offset + min(count, bytes.count - offset))])
    }
}

/// The first block of a source, read once: JPEG, PNG and TIFF headers are almost always inside
/// it, so a typical photo costs one `pread` (plus one for its tail).
struct HeadCachedSource: ByteSource {
    let base: any ByteSource
    let head: [UInt8]
    var size: Int { base.size }

    init(_ base: some ByteSource, headSize: Int = 64 * 1024) throws(GpickError) {
        self.base = base
        head = try base.read(at: 0, count: headSize)
    }

    func read(at offset: Int, count: Int) throws(GpickError) -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        // A file smaller than the block is all in it: never ask the disk again.
        if count <= head.count - offset || head.count >= size {
            return offset < head.count ? Array(head[offset..<(offset + min(count, head.count - offset))]) : []
        }
        return try base.read(at: offset, count: count)
    }
}
