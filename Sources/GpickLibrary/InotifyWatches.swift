import CGpickBase
import Foundation
import GRDB
import GpickBase
import Glibc
import Synchronization

/// inotify's event bits (linux/inotify.h; the ABI does not change).
enum Inotify {
    static let access: UInt32 = 0x0000_0001
    static let modify: UInt32 = 0x0000_0002
    static let attrib: UInt32 = 0x0000_0004
    static let closeWrite: UInt32 = 0x0000_0008
    static let movedFrom: UInt32 = 0x0000_0040
    static let movedTo: UInt32 = 0x0000_0080
    static let create: UInt32 = 0x0000_0100
    static let delete: UInt32 = 0x0000_0200
    static let deleteSelf: UInt32 = 0x0000_0400
    static let moveSelf: UInt32 = 0x0000_0800
    static let unmount: UInt32 = 0x0000_2000
    static let queueOverflow: UInt32 = 0x0000_4000
    static let ignored: UInt32 = 0x0000_8000
    static let onlyDir: UInt32 = 0x0100_0000
    static let dontFollow: UInt32 = 0x0200_0000
    static let isDir: UInt32 = 0x4000_0000

    static let mask = attrib | closeWrite | movedFrom | movedTo | create | delete | deleteSelf | moveSelf | onlyDir | dontFollow
}

/// The watched folders: inotify's watch descriptors both ways.
struct Watches {
    let fd: Int32
    let roots: MediaRoots
    let report: @Sendable (WatchEvent) -> Void
    private(set) var paths: [Int32: String] = [:]
    private(set) var descriptors: [String: Int32] = [:]
    private var warnedLimit = false

    init(fd: Int32, roots: MediaRoots, report: @escaping @Sendable (WatchEvent) -> Void) {
        self.fd = fd
        self.roots = roots
        self.report = report
    }

    var count: Int { paths.count }

    /// Watches `folder` and every folder under it (not hidden ones, not through links); the media
    /// files found there, for indexing what arrived before the watch did.
    mutating func addTree(_ folder: String) -> [String] {
        var seen = Set<String>()
        return addTree(folder, seen: &seen)
    }

    mutating func addTree(_ folder: String, seen: inout Set<String>) -> [String] {
        var files: [String] = []
        var stack = [folder]
        var visited = Set<[UInt64]>()
        while let dir = stack.popLast() {
            var info = cgpick_file_info()
            guard cgpick_statx(AT_FDCWD, dir, 1, &info) == 0, info.type == .directory,
                  visited.insert([info.dev, info.ino]).inserted else { continue }
            let wd = inotify_add_watch(fd, dir, Inotify.mask)
            if wd < 0 {
                switch errno {
                case ENOENT, ENOTDIR: continue  // gone meanwhile, or a link: not followed
                case ENOSPC:
                    if !warnedLimit {
                        warnedLimit = true
                        report(.notice("cannot watch more folders: the system's limit (fs.inotify.max_user_watches) is reached; changes in \(dir) and further folders are indexed by the next scan"))
                    }
                    continue
                default:
                    report(.folderUnreadable(path: dir, reason: FileWalker.errnoText()))
                    continue
                }
            }
            if let old = paths[wd], old != dir { descriptors[old] = nil }  // the same folder, moved
            paths[wd] = dir
            descriptors[dir] = wd
            seen.insert(dir)
            guard let handle = opendir(dir) else { continue }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name.hasPrefix(".") { continue }
                let path = dir + "/" + name
                var type = entry.pointee.d_type
                if type == UInt8(DT_UNKNOWN) {
                    var st = cgpick_file_info()
                    guard cgpick_statx(AT_FDCWD, path, 1, &st) == 0 else { continue }
                    type = st.type == .directory ? UInt8(DT_DIR) : st.type == .regular ? UInt8(DT_REG) : UInt8(DT_LNK)
                }
                if type == UInt8(DT_DIR) {
                    stack.append(path)
                } else if (type == UInt8(DT_REG) || type == UInt8(DT_LNK)) && FileWalker.isMedia(name) {
                    files.append(path)
                }
            }
        }
        return files
    }

    /// Stops watching `folder` and everything under it (it was deleted or moved away).
    mutating func removeTree(_ folder: String) {
        let prefix = folder + "/"
        for (dir, wd) in descriptors where dir == folder || dir.hasPrefix(prefix) {
            inotify_rm_watch(fd, wd)
            descriptors[dir] = nil
            paths[wd] = nil
        }
    }

    /// The kernel dropped this watch (its folder is gone).
    mutating func forget(_ wd: Int32) {
        if let dir = paths.removeValue(forKey: wd), descriptors[dir] == wd { descriptors[dir] = nil }
    }

    /// After an overflow: watches for every folder there is now, none for folders that are gone
    /// (whose IN_IGNORED may have been lost with the rest).
    mutating func resync() {
        var seen = Set<String>()
        for root in roots.paths { _ = addTree(root, seen: &seen) }
        for (dir, wd) in descriptors where !seen.contains(dir) {
            inotify_rm_watch(fd, wd)
            descriptors[dir] = nil
            paths[wd] = nil
        }
    }

    func isRoot(_ dir: String) -> Bool { roots.paths.contains(dir) }
}
