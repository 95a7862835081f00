import FoundationEssentials
import GstCore
import Glibc

/// Lets frames pass once `count` of them have gone by (a camera's warm-up frames).
final class FrameCountdown: @unchecked Sendable {
    // `@unchecked Sendable` invariant: `left` is read and written under `lock` only.
    private let lock = Lock()
    private var left: Int
    init(_ count: Int) { left = count }
    func pass() -> Bool {
        lock.withLock {
            if left > 0 { left -= 1; return false }
            return true
        }
    }
}
