import Glibc

/// What a child started with posix_spawn inherits: only stdin, stdout and stderr.
///
/// Not every descriptor in a process is close-on-exec (libcurl's sockets, some of GStreamer's
/// and GLib's), and a child that keeps one alive can outlive its parent's use of it by far: a
/// server then waits for a hang-up that never comes, a reader for an end of file.
public enum InheritedDescriptors {
    /// Adds to `actions` the closing, in the child, of every descriptor from 3 up. With glibc
    /// 2.34+ the child closes them all as it starts (atomic: a descriptor another thread opens
    /// meanwhile is closed too); elsewhere, those open now are listed, and one opened between
    /// the listing and the spawn can still leak.
    public static func closeAllButStandard(in actions: inout posix_spawn_file_actions_t) {
        if let closeFrom = addCloseFrom, closeFrom(&actions, 3) == 0 { return }
        for fd in openDescriptors() where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34+): GNU-only in its header, so
    /// not in Swift's Glibc module.
    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    /// This process's open descriptors now, from /proc/self/fd.
    private static func openDescriptors() -> [Int32] {
        guard let dir = opendir("/proc/self/fd") else { return [] }
        defer { closedir(dir) }
        let own = dirfd(dir)
        var found: [Int32] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let fd = Int32(name), fd != own { found.append(fd) }
        }
        return found
    }
}
