
/// Lets frames pass once `count` of them have gone by (a camera's warm-up frames).
final class FrameCountdown: Sendable {
    private let left: Locked<Int>
    init(_ count: Int) { left = Locked(count) }
    func pass() -> Bool {
        left.withLock { n in
            if n > 0 { n -= 1; return false }
            return true
        }
    }
}
