import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A temp file in the target directory, renamed over the final name when complete: readers never
/// see a partial file, and a symlink at the name is replaced rather than written through.
public final class TempFile: Sendable {
    public let target: OutputPath
    public let tempPath: String
    public let fd: Int32
    private let state = Locked(FileState())

    /// Read and written only under `state`'s lock.
    private struct FileState: ~Copyable {
        var published = false
        var closed = false
    }

    public init(for target: OutputPath) throws(GpickError) {
        self.target = target
        // mkstemp's template is ours; the user's name only supplies a literal prefix.
        let prefix = String(target.name.prefix(40)).replacing("/", with: "_")
        var template = Array("\(target.directory)/.\(prefix).gpick-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SyscallError.error(errno: errno, "create a file in", target.directory) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        // Held while this process lives (the kernel lets go when it dies, even by kill -9): a
        // temp file nobody holds is a leftover (`removeLeftovers`).
        _ = flock(fd, LOCK_EX | LOCK_NB)
        tempPath = String(cChars: template)
        // mkstemp makes 0600; outputs get the usual 0666 & ~umask.
        fchmod(fd, 0o666 & ~processUmask)
        self.fd = fd
    }

    public func write(_ bytes: [UInt8]) throws(GpickError) {
        let r: Result<Void, GpickError> = bytes.withUnsafeBytes { b in Result { () throws(GpickError) in try writeAll(fd, b, path: target.path) } }
        try r.get()
    }

    /// Moves the temp file to the final name (atomic). Safe to call more than once.
    public func publish() throws(GpickError) {
        try state.withLock { (s: inout FileState) throws(GpickError) in
            guard !s.published else { return }
            try sys("rename into", target.path) { rename(tempPath, target.path) }
            s.published = true
        }
    }

    public var currentPath: String { state.withLock { $0.published ? target.path : tempPath } }

    /// fsyncs and closes; with `publish`, renames first-time.
    public func finish() throws(GpickError) {
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
        state.withLock { s in
            if !s.closed { close(fd); s.closed = true }
        }
    }

    /// Bytes written so far.
    public var size: Int64 {
        var st = stat()
        return fstat(fd, &st) == 0 ? Int64(st.st_size) : 0
    }

    deinit { closeFD() }

    /// Removes the temp files in `directory` of targets named `prefix`… that no living process
    /// holds: what a killed gpick left (a recording's next part, a still being written). One in
    /// use, by this process or another gpick, is held and kept. Returns the names removed.
    @discardableResult
    public static func removeLeftovers(in directory: String, prefix: String) -> [String] {
        let start = "." + String(prefix.prefix(40)).replacing("/", with: "_")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.sorted().filter { name in
            guard name.hasPrefix(start), name.dropLast(6).hasSuffix(".gpick-") else { return false }
            let path = directory + "/" + name
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
            return unlink(path) == 0
        }
    }
}

/// Writes a whole file atomically (stills): temp file, fsync, rename.
public enum AtomicWrite {
    /// The same, off the cooperative pool: fsync can take a while.
    public static func store(_ bytes: [UInt8], to target: OutputPath) async throws(GpickError) {
        try await OffPool.run { () throws(GpickError) in try write(bytes, to: target) }
    }

    @available(*, noasync, message: "it fsyncs: await store(_:to:)")
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
