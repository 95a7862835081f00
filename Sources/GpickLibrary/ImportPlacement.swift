import CGpickBase
import Foundation
import GpickBase
import GpickFormats
import Glibc

/// Where and under which name an imported file lands, and how it gets there without ever
/// replacing what is there: folders `ROOT/YYYY/MM` that stay inside the root, literal names
/// numbered `NAME (1).jpg` on a clash, a hidden temp file renamed with RENAME_NOREPLACE.
enum ImportPlacement {
    /// `YYYY/MM` of a unix time, in local time.
    static func monthFolder(_ unix: Int64) -> String {
        var t = time_t(unix)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return "1970/01" }
        return cFormat("%04d/%02d", Int32(parts.tm_year + 1900), Int32(parts.tm_mon + 1))
    }

    /// Makes sure `root` is a folder (creating it when `create`, as user-dirs' folders may not exist
    /// yet); its canonical path.
    static func ensureRoot(_ root: String, create: Bool) throws(GpickError) -> String {
        switch isDirectory(root) {
        case true?: return MediaRoots.canonical(root)
        case false?: throw GpickError(.output, "the library folder \(root) is not a folder")
        case nil:
            guard create else { throw GpickError(.output, "the library folder \(root) does not exist") }
            do {
                try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            } catch {
                throw GpickError(.output, "cannot create the library folder \(root): \(LibraryIndex.reason(error))")
            }
            return MediaRoots.canonical(root)
        }
    }

    /// `ROOT/REL`, made as needed, one folder at a time, never leaving `root` (a link in the way
    /// is followed only when it leads to a folder inside the root). The canonical path.
    static func ensureFolder(_ relative: String, in root: String) throws(GpickError) -> String {
        var current = root
        for part in relative.split(separator: "/") {
            let next = current + "/" + part
            if mkdir(next, 0o777) == 0 {
                syncFolder(current)  // the new folder's entry is as durable as what goes in it
            } else if errno != EEXIST {
                throw SyscallError.error(errno: errno, "create the folder", next)
            }
            let resolved = MediaRoots.canonical(next)
            guard resolved.hasPrefix(root + "/") else {
                throw GpickError(.output, "\(next) leads out of the library folder \(root): nothing is written there")
            }
            guard isDirectory(resolved) == true else {
                throw GpickError(.output, "cannot create the folder \(next): a file of that name is in the way")
            }
            current = resolved
        }
        return current
    }

    static func syncFolder(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// The temp files of imports that died (killed, power lost) before renaming them: hidden,
    /// so nothing reads them, but they take space. One not written to for an hour is removed.
    static func sweepLeftovers(_ folderFD: Int32) {
        let dupFD = dup(folderFD)
        guard dupFD >= 0, let dir = fdopendir(dupFD) else {
            if dupFD >= 0 { close(dupFD) }
            return
        }
        defer { closedir(dir) }
        let hourAgo = time(nil) - 3600
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix(tempPrefix), name.hasSuffix(".part") else { continue }
            var st = stat()
            if fstatat(folderFD, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_ctim.tv_sec < hourAgo {
                _ = unlinkat(folderFD, name, 0)
            }
        }
    }

    static let tempPrefix = ".gpick-import-"

    /// Opens a folder for `*at` calls and fsync. The path is canonical: no link is followed.
    static func openFolder(_ path: String) throws(GpickError) -> Int32 {
        try sys("open the folder", path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW) }
    }

    /// The name a source gets in the library: its own, literally (`%s%n` stays), without leading
    /// dots (hidden files are not media to the library), and with the extension its content calls
    /// for when its own is not a media one (the scanner goes by extension first).
    static func importName(_ source: String, container: MediaMetadata.Container, mimeType: String = "") -> String {
        var name = String(source.split(separator: "/").last ?? "")
        while name.hasPrefix(".") { name.removeFirst() }
        if name.isEmpty { name = "imported" }
        if !FileWalker.isMedia(name) { name += "." + fileExtension(container, mimeType: mimeType) }
        return fitting(stem: name.deletingFilenameExtension, suffix: "", ext: name.filenameExtension)
    }

    /// The i-th name tried: `NAME.jpg`, `NAME (1).jpg`, `NAME (2).jpg`…
    static func candidate(_ name: String, _ i: Int) -> String {
        guard i > 0 else { return name }
        return fitting(stem: name.deletingFilenameExtension, suffix: " (\(i))", ext: name.filenameExtension)
    }

    /// stem+suffix.ext within NAME_MAX bytes, shortening the stem (never inside a character).
    static func fitting(stem: String, suffix: String, ext: String) -> String {
        let tail = suffix + (ext.isEmpty ? "" : "." + ext)
        var stem = Substring(stem)
        while stem.utf8.count + tail.utf8.count > 255, !stem.isEmpty { stem.removeLast() }
        return String(stem) + tail
    }

    static func fileExtension(_ c: MediaMetadata.Container, mimeType: String = "") -> String {
        switch c {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .gif: "gif"
        case .heif: "heic"
        case .avif: "avif"
        case .tiff: "tif"
        case .jxl: "jxl"
        case .raw: rawExtensions[mimeType] ?? "dng"
        case .mp4: "mp4"
        case .quicktime: "mov"
        case .matroska: "mkv"
        case .webm: "webm"
        case .avi: "avi"
        case .unknown: "bin"
        }
    }

    /// A camera RAW file's extension from the MIME type its reader gave it.
    static let rawExtensions = [
        "image/x-adobe-dng": "dng", "image/x-canon-cr2": "cr2", "image/x-canon-cr3": "cr3", "image/x-fuji-raf": "raf",
        "image/x-olympus-orf": "orf", "image/x-panasonic-rw2": "rw2", "image/x-raw": "tif",
    ]

    // MARK: - Renaming without replacing

    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32
    /// glibc's renameat2 (2.28+), which Swift's Glibc module does not declare (it is _GNU_SOURCE).
    private static let renameat2: RenameAt2? = {
        guard let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return nil }
        return unsafeBitCast(sym, to: RenameAt2.self)
    }()
    private static let renameNoReplace: UInt32 = 1

    /// Renames `from` (relative to `fromDir`) to `to` (in `toDir`) only if nothing is at `to`:
    /// 0, or the errno (EEXIST on a clash, EXDEV across file systems). renameat2's
    /// RENAME_NOREPLACE; where the file system refuses it, a hard link and unlink; where that is
    /// refused too (FAT), a placeholder created exclusively and renamed over.
    static func renameWithoutReplacing(_ fromDir: Int32, _ from: String, _ toDir: Int32, _ to: String) -> Int32 {
        func retrying(_ call: () -> Int32) -> Int32 {
            while true {
                if call() == 0 { return 0 }
                if errno != EINTR { return errno }
            }
        }
        if let renameat2 {
            let r = retrying { renameat2(fromDir, from, toDir, to, renameNoReplace) }
            if r != EINVAL && r != ENOSYS && r != ENOTSUP { return r }
        }
        let l = retrying { linkat(fromDir, from, toDir, to, 0) }
        if l == 0 {
            _ = unlinkat(fromDir, from, 0)
            return 0
        }
        if l == EEXIST || l == EXDEV || l == ENOENT || l == EACCES || l == ENOSPC || l == EROFS { return l }
        // No hard links here: hold the name with an empty file of our own, then rename over it.
        let fd = openat(toDir, to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 { return errno }
        close(fd)
        let r = retrying { renameat(fromDir, from, toDir, to) }
        if r != 0 { _ = unlinkat(toDir, to, 0) }
        return r
    }

    // MARK: - Copying

    /// Streams `sourceFD` into a hidden temp file in `folderFD`, hashing what it copies, and
    /// makes it durable with the source's times: the temp file's name. The copy is checked against
    /// `expectedHash` (the source must not change while it is copied); anything written is removed
    /// on failure. Messages name the file as it will be, `folder/name`.
    static func copyToTemp(sourceFD: Int32, source: String, sourceStat: stat, folderFD: Int32, folder: String, name: String,
                           expectedHash: String, progress: (Int64) -> Void) throws(GpickError) -> String {
        var tempName = ""
        var out: Int32 = -1
        for _ in 0..<16 {
            tempName = tempPrefix + String(UInt64.random(in: 0...UInt64.max), radix: 16) + ".part"
            out = openat(folderFD, tempName, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if out >= 0 || errno != EEXIST { break }
        }
        guard out >= 0 else { throw SyscallError.error(errno: errno, "create a file in", folder) }
        var kept = false
        defer {
            close(out)
            if !kept { _ = unlinkat(folderFD, tempName, 0) }
        }
        let target = folder + "/" + name  // what messages name: the temp file is ours
        let sum = Checksum()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ContentHash.chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: off_t = 0
        var lastReport: off_t = 0
        while true {
            let n = try ContentHash.readChunk(sourceFD, into: buffer, at: offset, path: source)
            if n == 0 { break }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            sum.update(bytes)
            try writeAll(out, bytes, path: target)
            offset += off_t(n)
            if offset - lastReport >= 64 << 20 {
                progress(Int64(offset))
                lastReport = offset
            }
        }
        guard sum.hex == expectedHash, offset == sourceStat.st_size else {
            throw GpickError(.input, "\(source) changed while it was being imported; nothing was written")
        }
        // Keep the source's times: the taken-date fallback and thumbnails go by mtime.
        var times = [sourceStat.st_atim, sourceStat.st_mtim]
        try sys("set the times of", target) { futimens(out, &times) }
        try sys("write", target) { fsync(out) }
        kept = true
        return tempName
    }
}
