import Foundation
import Testing

/// Servers and receivers that streaming tests start on 127.0.0.1: GStreamer's srtsrc as an SRT
/// listener, nginx with libnginx-mod-rtmp as an RTMP server, gst-rtsp-server taking a RECORD,
/// and the ports they take.
public enum StreamServers {
    /// A UDP (SRT) or TCP (RTMP) port nobody uses now on 127.0.0.1.
    public static func freePort(udp: Bool) throws -> Int {
        let (port, fd) = try boundSocket(udp: udp)
        close(fd)
        return port
    }

    /// A TCP port on 127.0.0.1 where nothing listens for as long as the returned socket is open:
    /// bound, never listening, so a connection is refused and no other test's server can take the
    /// port meanwhile (a port from `freePort` can be, and then its server answers or resets).
    public static func refusingPort() throws -> (port: Int, holder: Int32) {
        try boundSocket(udp: false)
    }

    /// A socket bound to a port the kernel chose on 127.0.0.1, and that port.
    private static func boundSocket(udp: Bool) throws -> (port: Int, holder: Int32) {
        let fd = socket(AF_INET, Int32(udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard bound else { close(fd); throw TestFailure("bind: \(errno)") }
        return (Int(UInt16(bigEndian: addr.sin_port)), fd)
    }

    /// The kernel's socket table (`/proc/net/tcp`, `/proc/net/udp`), read to its end. Foundation's
    /// String(contentsOfFile:) stops after the first page of a /proc file (4050 of 80,250 bytes
    /// with 300 sockets open): in a full run, with hundreds of sockets, a server's own line was
    /// past it, and tests saw a listening server as not listening.
    public static func socketTable(_ path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Whether something listens on UDP `port` (an SRT listener has bound it).
    public static func udpBound(_ port: Int) -> Bool {
        let hex = String(format: ":%04X ", port)
        let table = socketTable("/proc/net/udp")
        return table.split(separator: "\n").dropFirst().contains { $0.split(separator: " ").dropFirst().first.map { "\($0) ".hasSuffix(hex) } ?? false }
    }

    /// Whether something listens on TCP `port` (a server is ready for its first client).
    public static func tcpListening(_ port: Int) -> Bool {
        let hex = String(format: ":%04X ", port)
        let table = socketTable("/proc/net/tcp")
        // State 0A is LISTEN.
        return table.split(separator: "\n").dropFirst().contains { line in
            let f = line.split(separator: " ")
            return f.count > 3 && "\(f[1]) ".hasSuffix(hex) && f[3] == "0A"
        }
    }

    /// An RTSP server that takes one client's ANNOUNCE and RECORD at rtsp://127.0.0.1:PORT/live/cam:
    /// gst-rtsp-server in record mode (Debian's gir1.2-gst-rtsp-server-1.0, from Python), the
    /// library behind many RTSP servers. It keeps each stream as sent, in an MPEG-TS of its own
    /// in `dir`: video.ts (H.264) and audio.ts (Opus), whichever order the client announced them
    /// in; and it ends once the client has torn the session down.
    public static func rtspRecordServer(port: Int, dir: String) throws -> Subprocess.Running {
        try Subprocess.start("/usr/bin/python3", ["-u", "-c", rtspRecordScript, "\(port)", dir])
    }

    static let rtspRecordScript = """
    import sys, threading, gi
    gi.require_version('Gst', '1.0'); gi.require_version('GstRtspServer', '1.0')
    from gi.repository import Gst, GstRtspServer, GLib
    Gst.init(None)
    # Both streams' pads come on streaming threads of their own, at once: PyGObject looks a
    # method up on first use, and one of two threads doing so was told "'Caps' object has no
    # attribute 'to_string'" (the video stream was then never written). One pad at a time.
    one_pad = threading.Lock()
    port, out = sys.argv[1], sys.argv[2]
    loop = GLib.MainLoop()
    server = GstRtspServer.RTSPServer()
    server.set_address('127.0.0.1'); server.set_service(port)
    f = GstRtspServer.RTSPMediaFactory()
    f.set_transport_mode(GstRtspServer.RTSPTransportMode.RECORD)
    f.set_eos_shutdown(True)
    # The client chooses the order of its streams: each one is depayloaded whatever it is
    # (decodebin stops at H.264 or Opus), and written to a file of its own once its pad comes.
    f.set_launch('( decodebin name=depay0 caps="video/x-h264;audio/x-opus" decodebin name=depay1 caps="video/x-h264;audio/x-opus" )')
    def configure(factory, media):
        top = media.get_element()
        def added(element, pad):
            with one_pad:
                add_stream(element, pad)
        def add_stream(element, pad):
            caps = pad.get_current_caps() or pad.query_caps(None)
            video = caps.to_string().startswith('video')
            print('stream %s: %s' % (element.get_name(), caps.to_string()), flush=True)
            chain = Gst.parse_bin_from_description(
                ('h264parse config-interval=-1' if video else 'opusparse') +
                ' ! mpegtsmux ! filesink buffer-mode=unbuffered location=%s/%s.ts' % (out, 'video' if video else 'audio'), True)
            top.add(chain)
            chain.sync_state_with_parent()
            print('linked %s: %s' % (element.get_name(), pad.link(chain.get_static_pad('sink'))), flush=True)
        for name in ('depay0', 'depay1'):
            top.get_by_name(name).connect('pad-added', added)
        # Unprepared comes after the end of stream has gone through to the files (eos-shutdown).
        media.connect('unprepared', lambda m: (print('unprepared', flush=True), loop.quit()))
    f.connect('media-configure', configure)
    # Should the media never be unprepared, the client's hang-up still ends the server, a minute
    # later: the end of stream can take seconds to reach the files on a loaded machine, and
    # quitting before it does loses the frames still on their way (once seen under strace: 108
    # of 162 frames, the last ones missing).
    def gave_up():
        print('the media was not unprepared within 60 s of the hang-up', flush=True)
        loop.quit()
    server.connect('client-connected', lambda s, c: c.connect('closed', lambda c: GLib.timeout_add(60000, gave_up)))
    server.get_mount_points().add_factory('/live/cam', f)
    server.attach(None)
    print('listening', flush=True)
    loop.run()
    """

    /// An SRT listener that keeps what it receives in `file` (Matroska), and ends when the caller
    /// hangs up.
    public static func srtReceiver(port: Int, file: String, passphrase: String? = nil) throws -> Subprocess.Running {
        let query = "mode=listener" + (passphrase.map { "&passphrase=\($0)" } ?? "")
        return try Subprocess.start("/usr/bin/gst-launch-1.0", ["-q", "-e", "srtsrc", "uri=srt://127.0.0.1:\(port)?\(query)", "!", "tsdemux", "!",
                                                                "h264parse", "!", "matroskamux", "!", "filesink", "location=\(file)"])
    }

    /// An SRT listener that keeps the MPEG-TS it receives in `file` as sent (every stream, with
    /// the sender's own timestamps), and ends when the caller hangs up.
    public static func srtTSReceiver(port: Int, file: String) throws -> Subprocess.Running {
        try Subprocess.start("/usr/bin/gst-launch-1.0", ["-q", "-e", "srtsrc", "uri=srt://127.0.0.1:\(port)?mode=listener", "!",
                                                         "filesink", "location=\(file)"])
    }

    /// Waits for an SRT receiver above to end once its caller hung up, and ends it with an EOS
    /// (SIGINT; gst-launch -e finishes the file) when it has not within `seconds`. GStreamer
    /// 1.22's srtsrc as a listener can miss a hang-up: when its listener thread drops the caller
    /// before the reading thread's poll sees the socket break, the reader goes back to waiting
    /// for a new caller (gst_srt_object_wait_caller), for ever. Seen once in a loaded CI run,
    /// 20 s after gpick had stopped publishing and exited with status 0.
    public static func ended(_ receiver: Subprocess.Running, within seconds: Double = 15) async throws -> Subprocess.Result {
        if try await !TestEnvironment.eventually(HangBound.seconds(seconds), { !receiver.process.isRunning }) { receiver.signal(SIGINT) }
        return try await receiver.wait(timeout: 20)
    }

    /// nginx with the RTMP module on `port`, from a private configuration in `dir`.
    public static func rtmpServer(port: Int, dir: String) async throws -> Subprocess.Running {
        let conf = """
        load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(dir)/nginx.pid;
        error_log \(dir)/error.log info;
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
