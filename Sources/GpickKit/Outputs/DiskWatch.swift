import Dispatch
import FoundationEssentials
import GpickBase
#if canImport(Glibc)
import Glibc
#endif

/// Keeps a recording from filling its disk. A write that fails for want of space tears the file
/// (the muxer cannot finish it), so the recording must stop, or make room, while there is still
/// room to finish: the watch is told how much has been written so far, and keeps free what the
/// next stretch of recording needs at that rate (`reserve`). Below it, a loop recording's keeper
/// deletes its oldest finished parts, whatever its own rule keeps; when nothing is left to
/// delete, or for any other recording, `full` is told the space left, once, and the recording is
/// to be stopped then: its file, or its parts, end whole.
public final class DiskWatch: Sendable {
    private let folder: String
    private let partSeconds: Double?
    private let keeper: PartKeeper?
    private let full: @Sendable (_ available: Int64) -> Void
    private let queue = DispatchQueue(label: "gpick.disk-watch")
    private struct State {
        var checking = false
        var told = false
        /// (seconds, bytes) of the last few checks: the rate is measured over the last two
        /// seconds, not from the start (a file's first bytes are its reserved header and a
        /// keyframe, several seconds' worth at the rate that follows).
        var samples: [(Double, Int64)] = []
    }
    private let state = Locked(State())
    /// Where the space comes from: statvfs of the folder (a test gives its own).
    private let space: @Sendable (String) -> (available: Int64, total: Int64)?

    public init(folder: String, partSeconds: Double?, keeper: PartKeeper?,
                space: @escaping @Sendable (String) -> (available: Int64, total: Int64)? = DiskWatch.space,
                full: @escaping @Sendable (_ available: Int64) -> Void) {
        (self.folder, self.partSeconds, self.keeper, self.space, self.full) = (folder, partSeconds, keeper, space, full)
    }

    /// What must stay free to go on at `bytesPerSecond`: two parts' worth (or two seconds of a
    /// single file, or of parts shorter than that), and 256 KiB for finishing a file (MKV and
    /// WebM write their index at the end) and starting the next part's header.
    public static func reserve(bytesPerSecond: Double, partSeconds: Double?) -> Int64 {
        Int64(bytesPerSecond * 2 * max(2, partSeconds ?? 0)) + 256 * 1024
    }

    /// The folder's disk: bytes available to this process, and its size; nil when it cannot be read.
    @Sendable public static func space(_ folder: String) -> (available: Int64, total: Int64)? {
        var st = statvfs()
        guard statvfs(folder, &st) == 0 else { return nil }
        return (Int64(st.f_bavail) * Int64(st.f_frsize), Int64(st.f_blocks) * Int64(st.f_frsize))
    }

    /// `bytes` written so far: checked off the cooperative pool (statvfs can wait on a network
    /// disk), one check at a time (a check still under way makes this one moot). The rate is
    /// bytes per second of the wall clock, which is how the disk fills (on a loaded machine the
    /// frames recorded and the bytes written part company for a while).
    public func check(bytes: Int64) {
        let seconds = Double(Monotonic.nanoseconds()) / 1e9
        let rate = state.withLock { s -> Double?? in
            s.samples.append((seconds, bytes))
            s.samples.removeAll { $0.0 < seconds - 2 }
            guard !s.checking, !s.told else { return .none }
            s.checking = true
            // Until a second of samples: only the room to finish.
            guard let first = s.samples.first, seconds - first.0 >= 1 else { return .some(nil) }
            return .some(Double(bytes - first.1) / (seconds - first.0))
        }
        guard let rate else { return }
        let need = rate.map { Self.reserve(bytesPerSecond: max(0, $0), partSeconds: partSeconds) } ?? Self.reserve(bytesPerSecond: 0, partSeconds: nil)
        queue.async { [self] in
            defer { state.withLock { $0.checking = false } }
            guard var available = space(folder)?.available, available < need else { return }
            if let keeper { available = keeper.makeRoom(need, available: available, space: { [space, folder] in space(folder)?.available }) }
            guard available < need, state.withLock({ s in defer { s.told = true }; return !s.told }) else { return }
            full(available)
        }
    }

    /// Waits for a check under way.
    public func settle() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in queue.async { c.resume() } }
    }
}
