import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// systemd's service notification protocol (sd_notify(3)) without libsystemd: each message is
/// one datagram of `KEY=VALUE` lines to the socket that `$NOTIFY_SOCKET` names (a path, or
/// `@name` for a socket in the abstract namespace). A service of `Type=notify` is started once
/// it says `READY=1`; with `WatchdogSec=`, it is restarted when `WATCHDOG=1` stops coming.
/// Outside a service manager (no `$NOTIFY_SOCKET`) every message goes nowhere.
public final class ServiceNotifier: Sendable {
    private let fd: Int32
    private let address: [UInt8]

    /// How often the service manager wants `WATCHDOG=1`: half of `$WATCHDOG_USEC`, as
    /// sd_watchdog_enabled(3) advises, when `$WATCHDOG_PID` is unset or names this process; nil
    /// when no watchdog is asked for.
    public let watchdogInterval: Duration?

    /// The notifier this process was started with (nil when it runs under no service manager).
    public static let current: ServiceNotifier? = ServiceNotifier(environment: ProcessInfo.processInfo.environment)

    public init?(environment: [String: String], pid: Int32 = getpid()) {
        guard let path = environment["NOTIFY_SOCKET"], path.count > 1, path.hasPrefix("/") || path.hasPrefix("@") else { return nil }
        var name = Array(path.utf8)
        if name[0] == UInt8(ascii: "@") { name[0] = 0 }  // the abstract namespace
        let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        guard name.count < capacity else { return nil }
        var a = sockaddr_un()
        a.sun_family = sa_family_t(AF_UNIX)
        let offset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        var bytes = withUnsafeBytes(of: &a) { Array($0) }
        bytes.replaceSubrange(offset..<(offset + name.count), with: name)
        // A path's length counts its terminating zero; an abstract name's does not.
        address = Array(bytes.prefix(offset + name.count + (name[0] == 0 ? 0 : 1)))
        let s = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { return nil }
        fd = s
        let usec = environment["WATCHDOG_USEC"].flatMap { Int64($0) } ?? 0
        let ours = environment["WATCHDOG_PID"].map { Int32($0) == pid } ?? true
        watchdogInterval = usec > 0 && ours ? .microseconds(usec / 2) : nil
    }

    deinit { close(fd) }

    /// Sends `lines` (`READY=1`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`) as one message.
    /// Returns whether the service manager's socket took it.
    @discardableResult
    public func notify(_ lines: String...) -> Bool {
        let text = Array(lines.joined(separator: "\n").utf8)
        return address.withUnsafeBytes { a in
            text.withUnsafeBytes { t in
                sendto(fd, t.baseAddress, t.count, Int32(MSG_NOSIGNAL), a.baseAddress!.assumingMemoryBound(to: sockaddr.self),
                       socklen_t(a.count)) == t.count
            }
        }
    }
}
