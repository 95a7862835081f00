import CGpickBase
import Foundation
import GpickBase

/// A media file the walk found: canonical path, its root, and what statx said of it.
struct FoundFile: Sendable {
    var path: String
    var root: String
    var device: Int64
    var inode: Int64
    var size: Int64
    var mtimeNs: Int64
    var birth: Int64
}

/// Walks the roots for files with a media extension. It never leaves the roots: a symlink is
/// followed only when its target is inside one (and is then known by the target's path), hidden
/// names are skipped, and each folder is read once however many links lead to it.
struct FileWalker {
    let roots: MediaRoots
    /// A root or folder that could not be read: its rows must not be taken for deleted files.
    var unreadableFolders: [(path: String, reason: String)] = []
    var linksLeavingRoots: [String] = []
    var files: [FoundFile] = []
    private var visited = Set<[Int64]>()
    private var seenPaths = Set<String>()
    private var trackingPaths = false

    init(roots: MediaRoots) { self.roots = roots }

    static let photoExtensions = Set(["jpg", "jpeg", "jpe", "png", "webp", "gif", "heic", "heif", "avif", "tif", "tiff", "jxl"])
        .union(rawExtensions)
    /// Camera RAW files, shown by their embedded previews.
    static let rawExtensions: Set<String> = ["dng", "cr2", "cr3", "nef", "nrw", "arw", "srf", "sr2", "raf", "orf", "rw2", "pef", "srw"]
    static let videoExtensions: Set<String> = ["mp4", "m4v", "mov", "qt", "3gp", "mkv", "webm", "avi"]

    static func isMedia(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { isMedia(UnsafeRawBufferPointer($0)) }
    }

    /// The same test on a name's bytes (a directory entry's), before any String is made: a
    /// rescan looks at every entry of the tree, and most of the time goes to that walk.
    static func isMedia(_ name: UnsafeRawBufferPointer) -> Bool {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0, name.count - dot - 1 <= 4, name.count - dot - 1 >= 2 else {
            return false
        }
        var ext: UInt32 = 0  // up to four ASCII letters, lower-cased, packed
        for b in name[(dot + 1)...] {
            let lower = (b >= 65 && b <= 90) ? b | 0x20 : b
            ext = ext << 8 | UInt32(lower)
        }
        return mediaExtensionCodes.contains(ext)
    }

    private static let mediaExtensionCodes: Set<UInt32> = Set(photoExtensions.union(videoExtensions).map { e in
        e.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    })

    mutating func walk() {
        for root in roots.paths {
            var info = cgpick_file_info()
            guard cgpick_statx(AT_FDCWD, root, 0, &info) == 0 else {
                unreadableFolders.append((root, Self.errnoText()))
                continue
            }
            guard info.type == .directory else {
                unreadableFolders.append((root, "not a folder"))
                continue
            }
            walk(folder: root, root: root, info: info)
        }
    }

    private mutating func walk(folder: String, root: String, info: cgpick_file_info) {
        guard visited.insert([Int64(bitPattern: info.dev), Int64(bitPattern: info.ino)]).inserted else { return }
        guard let dir = opendir(folder) else {
            unreadableFolders.append((folder, Self.errnoText()))
            return
        }
        defer { closedir(dir) }
        let fd = dirfd(dir)
        var subfolders: [(String, cgpick_file_info)] = []
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        while let entry = readdir(dir) {
            let type = entry.pointee.d_type
            // Hidden files and folders (.thumbnails, .git, editors' temp files) are not media;
            // other files are told by their name's bytes, before a String is made of it.
            let (skip, media) = withUnsafeBytes(of: entry.pointee.d_name) { raw -> (Bool, Bool) in
                let bytes = UnsafeRawBufferPointer(rebasing: raw[..<(raw.firstIndex(of: 0) ?? raw.count)])
                if bytes.first == UInt8(ascii: ".") { return (true, false) }
                let media = Self.isMedia(bytes)
                return (type != UInt8(DT_DIR) && type != UInt8(DT_UNKNOWN) && type != UInt8(DT_LNK) && !media, media)
            }
            if skip { continue }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            let path = prefix + name
            if type == UInt8(DT_LNK) {
                followLink(path)
                continue
            }
            var st = cgpick_file_info()
            guard cgpick_statx(fd, name, 1, &st) == 0 else { continue }  // gone meanwhile
            switch st.type {
            case .directory: subfolders.append((path, st))
            case .regular where media: add(path, root: root, st)
            case .link: followLink(path)
            default: break
            }
        }
        for (path, st) in subfolders { walk(folder: path, root: root, info: st) }
    }

    /// A link is followed only into a root; it is then known by the target's own path.
    private mutating func followLink(_ path: String) {
        guard let resolved = realpath(path, nil) else { return }  // dangling
        let target = String(cString: resolved)
        free(resolved)
        guard let root = roots.root(of: target) else {
            linksLeavingRoots.append(path)
            return
        }
        var st = cgpick_file_info()
        guard cgpick_statx(AT_FDCWD, target, 1, &st) == 0 else { return }
        switch st.type {
        case .directory:
            if !target.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { walk(folder: target, root: root, info: st) }
        case .regular where Self.isMedia(target): add(target, root: root, st, throughLink: true)
        default: break
        }
    }

    private mutating func add(_ path: String, root: String, _ st: cgpick_file_info, throughLink: Bool = false) {
        // A plain walk meets each path once (folders are visited once, by inode): only links can
        // lead to a file twice, so the set of paths is kept from the first link on.
        if throughLink && !trackingPaths {
            trackingPaths = true
            seenPaths = Set(files.map(\.path))
        }
        if trackingPaths { guard seenPaths.insert(path).inserted else { return } }
        files.append(FoundFile(path: path, root: root, device: Int64(bitPattern: st.dev), inode: Int64(bitPattern: st.ino),
                               size: Int64(bitPattern: st.size), mtimeNs: st.mtime_ns, birth: st.btime))
    }

    /// One file, as the walk would have found it: nil when it is not there or not media.
    static func found(_ path: String, root: String) -> FoundFile? {
        var st = cgpick_file_info()
        guard isMedia(path), cgpick_statx(AT_FDCWD, path, 1, &st) == 0, st.type == .regular else { return nil }
        return FoundFile(path: path, root: root, device: Int64(bitPattern: st.dev), inode: Int64(bitPattern: st.ino),
                         size: Int64(bitPattern: st.size), mtimeNs: st.mtime_ns, birth: st.btime)
    }

    static func errnoText() -> String {
        switch errno {
        case EACCES, EPERM: "permission denied"
        case ENOENT: "no such folder"
        case ENOTDIR: "not a folder"
        default: String(cString: strerror(errno))
        }
    }
}

extension cgpick_file_info {
    enum FileType { case directory, regular, link, other }

    /// The type bits of st_mode (written out: linux/stat.h and glibc both declare S_IFMT).
    var type: FileType {
        switch mode & 0o170000 {
        case 0o040000: .directory
        case 0o100000: .regular
        case 0o120000: .link
        default: .other
        }
    }
}
