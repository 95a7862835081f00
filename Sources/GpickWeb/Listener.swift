import GpickBase
#if canImport(Glibc)
import Glibc
#endif

/// The listening socket of gpick's web server: TCP on 127.0.0.1 only, never the LAN.
enum Listener {
    /// The queue of connections not yet accepted: the kernel's own limit (net.core.somaxconn),
    /// as Go's net package asks. A burst larger than the queue (128 overflowed under 300 slow
    /// clients at once on a busy machine) is left to TCP's retries, which wait 1, 2, 4… up to 31 s.
    static let backlog = SOMAXCONN

    static func open(port: Int) throws(GpickError) -> (fd: Int32, port: Int) {
        guard (0...65535).contains(port) else { throw GpickError(.usage, "port \(port) is out of range (0-65535)") }
        let address = "127.0.0.1:\(port)"
        let fd = try sys("open a socket for", address, kind: .runtime) {
            socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do throws(GpickError) {
            // A restarted server can take its port back at once instead of waiting out TIME_WAIT.
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, Int32(1), address)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = in_port_t(UInt16(port).bigEndian)
            addr.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian   // loopback only: no LAN exposure
            let r = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if r != 0 {
                let e = errno
                switch e {
                case EADDRINUSE: throw GpickError(.usage, "port \(port) on 127.0.0.1 is in use", remedy: .choosePort(privileged: false))
                case EACCES: throw GpickError(.usage, "port \(port) on 127.0.0.1 needs privileges", remedy: .choosePort(privileged: true))
                default: throw SyscallError.error(errno: e, "bind", address, kind: .runtime)
                }
            }
            try sys("listen on", address, kind: .runtime) { Glibc.listen(fd, backlog) }
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            try sys("read the address of", address, kind: .runtime) {
                withUnsafeMutablePointer(to: &addr) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
                }
            }
            return (fd, Int(UInt16(bigEndian: addr.sin_port)))
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    private static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: some BitwiseCopyable, _ address: String) throws(GpickError) {
        var v = value
        try sys("set socket options on", address, kind: .runtime) {
            setsockopt(fd, level, name, &v, socklen_t(MemoryLayout.size(ofValue: v)))
        }
    }
}
