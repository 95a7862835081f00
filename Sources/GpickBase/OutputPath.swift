import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A checked place to write one output. Names are literal (`%` stays `%`); the parent directory
/// must exist and be writable; an existing symlink at the name is replaced, never followed.
public struct OutputPath: Sendable, Hashable, CustomStringConvertible {
    public let directory: String
    public let name: String
    public var path: String { directory == "/" ? "/\(name)" : "\(directory)/\(name)" }
    public var description: String { path }

    /// Checks `given` (as typed by the user). With `confinedTo`, the result must stay inside that
    /// directory: no `..` escape, no absolute path elsewhere, no symlinked directory on the way.
    public init(_ given: String, confinedTo root: String? = nil) throws(GpickError) {
        guard !given.isEmpty else { throw GpickError(.usage, "empty output path") }
        guard !given.contains("\0") else { throw GpickError(.usage, "output path contains a NUL byte") }
        var full = given
        if let root {
            guard !given.hasPrefix("/") else { throw GpickError(.usage, "output \"\(given)\" must be relative to the output directory \(root)") }
            let parts = given.split(separator: "/")
            guard !parts.contains("..") else { throw GpickError(.usage, "output \"\(given)\" escapes the output directory \(root)") }
            full = root + "/" + given
        }
        let url = URL(fileURLWithPath: full)
        let name = url.lastPathComponent
        guard !name.isEmpty, name != ".", name != "..", !given.hasSuffix("/") else {
            throw GpickError(.usage, "output \"\(given)\" names a directory, not a file")
        }
        guard name.utf8.count <= 255 else { throw GpickError(.usage, "file name too long: \(name)") }
        let dir = url.deletingLastPathComponent().path
        guard let isDir = isDirectory(dir) else {
            throw GpickError(.output, "output directory does not exist: \(dir)")
        }
        guard isDir else { throw GpickError(.output, "not a directory: \(dir)") }
        if let root {
            // Resolve symlinks on both sides: the real parent must be inside the real root.
            let realRoot = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
            let realDir = URL(fileURLWithPath: dir).resolvingSymlinksInPath().path
            guard realDir == realRoot || realDir.hasPrefix(realRoot + "/") else {
                throw GpickError(.usage, "output \"\(given)\" escapes the output directory \(root) through a symlink")
            }
        }
        guard access(dir, W_OK | X_OK) == 0 else {
            throw errno == EROFS ? GpickError(.output, "read-only file system: cannot write in \(dir)")
                                 : GpickError(.output, "permission denied: cannot write in \(dir)")
        }
        var st = stat()
        if lstat(url.path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            throw GpickError(.output, "\(url.path) is a directory")
        }
        self.directory = dir
        self.name = name
    }

    package init(directory: String, name: String) {
        self.directory = directory
        self.name = name
    }

    /// The same directory with another name (numbered burst files, sidecars).
    public func sibling(_ name: String) -> OutputPath { OutputPath(directory: directory, name: name) }

    /// `shot.jpg` → `shot-007.jpg`: numbered names for bursts, literal (no printf formats).
    public func numbered(_ i: Int, of count: Int) -> OutputPath {
        let digits = max(3, String(count).count)
        let ext = name.filenameExtension
        let stem = name.deletingFilenameExtension
        let num = String(repeating: "0", count: max(0, digits - String(i).count)) + String(i)
        return sibling(ext.isEmpty ? "\(stem)-\(num)" : "\(stem)-\(num).\(ext)")
    }

    public var pathExtension: String { name.filenameExtension.lowercased() }
}

/// A temp file in the target directory, renamed over the final name when complete: readers never
/// see a partial file, and a symlink at the name is replaced rather than written through.
public final class TempFile: @unchecked Sendable {
    // `@unchecked Sendable` invariant: fd and state are only touched under `lock`.
    public let target: OutputPath
    public let tempPath: String
    private let lock = Lock()
    private var fdValue: Int32
    private var published = false
    private var closed = false

    public init(for target: OutputPath) throws(GpickError) {
        self.target = target
        // mkstemp's template is ours; the user's name only supplies a literal prefix.
        let prefix = String(target.name.prefix(40)).replacing("/", with: "_")
        var template = Array("\(target.directory)/.\(prefix).gpick-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SyscallError.error(errno: errno, "create a file in", target.directory) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        tempPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // mkstemp makes 0600; outputs get the usual 0666 & ~umask.
        fchmod(fd, 0o666 & ~processUmask)
        fdValue = fd
    }

    public var fd: Int32 { lock.withLock { fdValue } }

    public func write(_ bytes: [UInt8]) throws(GpickError) {
        let fd = self.fd
        let r: Result<Void, GpickError> = bytes.withUnsafeBytes { b in Result { () throws(GpickError) in try writeAll(fd, b, path: target.path) } }
        try r.get()
    }

    /// Moves the temp file to the final name (atomic). Safe to call more than once.
    public func publish() throws(GpickError) {
        lock.lock()
        defer { lock.unlock() }
        guard !published else { return }
        try sys("rename into", target.path) { rename(tempPath, target.path) }
        published = true
    }

    public var currentPath: String { lock.withLock { published ? target.path : tempPath } }

    /// fsyncs and closes; with `publish`, renames first-time.
    public func finish() throws(GpickError) {
        let fd = self.fd
        if fsync(fd) != 0 && errno != EINVAL {
            let e = errno
            discard()
            throw SyscallError.error(errno: e, "write", target.path)
        }
        try publish()
        closeFD()
    }

    /// Closes and removes whatever was written (temp or published).
    public func discard() {
        let path = currentPath
        closeFD()
        unlink(path)
    }

    public func closeFD() {
        lock.withLock {
            if !closed { close(fdValue); closed = true }
        }
    }

    /// Bytes written so far.
    public var size: Int64 {
        var st = stat()
        return fstat(fd, &st) == 0 ? Int64(st.st_size) : 0
    }

    deinit { if !closed { close(fdValue) } }
}

/// Writes a whole file atomically (stills): temp file, fsync, rename.
public enum AtomicWrite {
    /// The same, on a GCD thread: fsync can take a while and must not hold the cooperative pool.
    public static func store(_ bytes: [UInt8], to target: OutputPath) async throws(GpickError) {
        let result: Result<Void, GpickError> = await withCheckedContinuation { c in
            DispatchQueue.global().async { c.resume(returning: Result { () throws(GpickError) in try write(bytes, to: target) }) }
        }
        try result.get()
    }

    public static func write(_ bytes: [UInt8], to target: OutputPath) throws(GpickError) {
        let tmp = try TempFile(for: target)
        do {
            try tmp.write(bytes)
            try tmp.finish()
        } catch {
            tmp.discard()
            throw error
        }
    }
}
