import FoundationEssentials
import Glibc

/// Where the PipeWire daemon listens, as libpipewire finds it: `PIPEWIRE_REMOTE` (a socket name
/// or path) in `PIPEWIRE_RUNTIME_DIR`, else `XDG_RUNTIME_DIR`, else `USERPROFILE`.
public enum PipeWireSocket {
    public static var path: String? {
        let env = ProcessInfo.processInfo.environment
        let name = env["PIPEWIRE_REMOTE"].flatMap { $0.isEmpty ? nil : $0 } ?? "pipewire-0"
        if name.hasPrefix("/") { return name }
        for key in ["PIPEWIRE_RUNTIME_DIR", "XDG_RUNTIME_DIR", "USERPROFILE"] {
            if let dir = env[key], !dir.isEmpty { return dir + "/" + name }
        }
        return nil
    }

    /// Whether a daemon accepts connections there (a stale socket file does not).
    public static var isReachable: Bool {
        guard let fd = connect() else { return false }
        close(fd)
        return true
    }

    /// A new connection to the daemon (close-on-exec), owned by the caller; nil when none
    /// accepts one.
    public static func connect() -> Int32? {
        guard let path else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { close(fd); return nil }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard r == 0 else { close(fd); return nil }
        return fd
    }
}
