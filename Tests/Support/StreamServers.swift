import Foundation
import Testing

/// Servers and receivers that streaming tests start on 127.0.0.1: GStreamer's srtsrc as an SRT
/// listener, nginx with libnginx-mod-rtmp as an RTMP server, and the ports they take.
public enum StreamServers {
    /// A UDP (SRT) or TCP (RTMP) port nobody uses now on 127.0.0.1.
    public static func freePort(udp: Bool) throws -> Int {
        let fd = socket(AF_INET, Int32(udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard bound else { throw TestFailure("bind: \(errno)") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Whether something listens on UDP `port` (an SRT listener has bound it).
    public static func udpBound(_ port: Int) -> Bool {
        let hex = String(format: ":%04X ", port)
        let table = (try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8)) ?? ""
        return table.split(separator: "\n").dropFirst().contains { $0.split(separator: " ").dropFirst().first.map { "\($0) ".hasSuffix(hex) } ?? false }
    }

    /// An SRT listener that keeps what it receives in `file` (Matroska), and ends when the caller
    /// hangs up.
    public static func srtReceiver(port: Int, file: String, passphrase: String? = nil) throws -> Subprocess.Running {
        let query = "mode=listener" + (passphrase.map { "&passphrase=\($0)" } ?? "")
        return try Subprocess.start("/usr/bin/gst-launch-1.0", ["-q", "srtsrc", "uri=srt://127.0.0.1:\(port)?\(query)", "!", "tsdemux", "!",
                                                                "h264parse", "!", "matroskamux", "!", "filesink", "location=\(file)"])
    }

    /// An SRT listener that keeps the MPEG-TS it receives in `file` as sent (every stream, with
    /// the sender's own timestamps), and ends when the caller hangs up.
    public static func srtTSReceiver(port: Int, file: String) throws -> Subprocess.Running {
        try Subprocess.start("/usr/bin/gst-launch-1.0", ["-q", "srtsrc", "uri=srt://127.0.0.1:\(port)?mode=listener", "!",
                                                         "filesink", "location=\(file)"])
    }

    /// nginx with the RTMP module on `port`, from a private configuration in `dir`.
    public static func rtmpServer(port: Int, dir: String) async throws -> Subprocess.Running {
        let conf = """
        load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(dir)/nginx.pid;
        error_log \(dir)/error.log;
        events { worker_connections 64; }
        rtmp { server { listen 127.0.0.1:\(port); application live { live on; record off; } } }
        """
        try conf.write(toFile: "\(dir)/nginx.conf", atomically: false, encoding: .utf8)
        let p = try Subprocess.start("/usr/sbin/nginx", ["-c", "\(dir)/nginx.conf", "-p", dir, "-e", "\(dir)/error.log"])
        let listening = try await TestEnvironment.eventually(10) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = in_port_t(UInt16(port).bigEndian)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            return withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
        }
        #expect(listening, "nginx did not listen: \(String(describing: try? String(contentsOfFile: "\(dir)/error.log", encoding: .utf8)))")
        return p
    }
}
