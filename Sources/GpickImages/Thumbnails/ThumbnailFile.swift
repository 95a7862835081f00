import GpickBase
import FoundationEssentials
import Glibc

/// Thumbnail files on disk: reading their keys, writing them (directories 0700, files 0600,
/// through a temp file in the same directory and a rename), and the failure records.
enum ThumbnailFile {
    /// Thumbnails are small; a bigger file in the cache is not one we read.
    static let maxBytes = 32 << 20
    /// Key of the one-line reason in a failure record (the standard leaves unprefixed names
    /// and the `Thumb::` namespace to itself; program keys start with `X-`).
    static let reasonKey = "X-GPick::Reason"

    /// Whether the PNG at `path` is a whole thumbnail of this URI at this mtime (and size, when
    /// it records one). MTime must be equal: a file restored from a backup is older, not newer.
    /// Without `inflate`, keys in compressed chunks count as missing (reading them starts libvips).
    static func matches(_ path: String, uri: String, stamp: Stamp, inflate: Bool = true) -> Bool {
        valid(path, uri: uri, stamp: stamp, inflate: inflate) != nil
    }

    /// The same test, giving the PNG's bytes when it passes: what was read to look at its keys
    /// is what a caller that wants the picture sends.
    static func valid(_ path: String, uri: String, stamp: Stamp, inflate: Bool = true) -> [UInt8]? {
        guard let bytes = read(path), let keys = keys(in: bytes, inflate: inflate), current(keys, uri: uri, stamp: stamp) else { return nil }
        return bytes
    }

    /// The reason recorded when this file at this mtime failed before, else nil.
    static func failure(_ path: String, uri: String, stamp: Stamp) -> String? {
        guard let keys = keys(of: path), current(keys, uri: uri, stamp: stamp) else { return nil }
        return keys[reasonKey] ?? "cannot make a thumbnail of \(uri)"
    }

    private static func current(_ keys: [String: String], uri: String, stamp: Stamp) -> Bool {
        guard keys["Thumb::URI"] == uri, keys["Thumb::MTime"].flatMap({ Int64($0.trimmed()) }) == stamp.mtime else { return false }
        if let size = keys["Thumb::Size"] { return Int64(size.trimmed()) == stamp.size }
        return true
    }

    /// The text keys of a whole PNG, or nil when there is no such file or it is not a whole PNG.
    static func keys(of path: String, inflate: Bool = true) -> [String: String]? {
        read(path).flatMap { keys(in: $0, inflate: inflate) }
    }

    private static func keys(in bytes: [UInt8], inflate: Bool) -> [String: String]? {
        guard let chunks = PNGChunks.parse(bytes) else { return nil }
        let (values, compressed) = PNGChunks.text(in: chunks)
        // zTXt (libvips, Qt for long values): libvips' PNG reader inflates them.
        if inflate, compressed, values["Thumb::URI"] == nil || values["Thumb::MTime"] == nil {
            return values.merging(StillImage.pngText(bytes) ?? [:]) { mine, _ in mine }
        }
        return values
    }

    private static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0, st.st_size <= maxBytes else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var got = 0
        while got < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + got, $0.count - got) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            got += n
        }
        return got == bytes.count ? bytes : nil
    }

    /// Records that a file could not be thumbnailed: a 1×1 transparent PNG with its URI, MTime,
    /// Size and the reason, so it is not tried again until it changes.
    static func recordFailure(in directory: String, name: String, uri: String, stamp: Stamp,
                              software: String, reason: String) throws(GpickError) {
        let pixel: [UInt8] = [0, 0, 0, 0]
        let image = try pixel.withUnsafeBytes { b in
            Result { () throws(GpickError) in try VipsPicture.rgba(b, width: 1, height: 1, stride: 4) }
        }.get()
        let png = try image.pngData(text: [
            ("Thumb::URI", uri), ("Thumb::MTime", String(stamp.mtime)), ("Thumb::Size", String(stamp.size)),
            ("Software", software), (reasonKey, reason),
        ])
        try write(png, directory: directory, name: name)
    }

    /// Writes `bytes` as `directory/name`, mode 0600, all at once: a temp file in the same
    /// directory, renamed over the name. Without fsync: a thumbnail lost in a crash is made again,
    /// and one cut short fails `matches` (no IEND), so it is made again too.
    static func write(_ bytes: [UInt8], directory: String, name: String) throws(GpickError) {
        try makeDirectories(directory)
        let tmp = try TempFile(for: OutputPath(directory: directory, name: name))
        do {
            try sys("set the mode of", tmp.tempPath) { fchmod(tmp.fd, 0o600) }
            try tmp.write(bytes)
            try tmp.publish()
            tmp.closeFD()
        } catch {
            tmp.discard()
            throw error
        }
    }

    /// `mkdir -p` with mode 0700 for each directory it makes (existing ones are the user's).
    static func makeDirectories(_ path: String) throws(GpickError) {
        if isDirectory(path) == true { return }
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !parent.isEmpty, parent != path { try makeDirectories(parent) }
        if mkdir(path, 0o700) == 0 {
            chmod(path, 0o700)  // whatever the umask
        } else if errno != EEXIST {
            throw SyscallError.error(errno: errno, "create the directory", path)
        }
        guard isDirectory(path) == true else { throw GpickError(.output, "not a directory: \(path)") }
    }
}
