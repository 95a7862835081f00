import GpickBase

/// A fixture made once for the whole run, on a thread of its own: the first test to ask starts
/// it, and every test awaits the same result. Made inside a `static let`'s initializer instead,
/// it blocked a thread of the cooperative pool (two on this machine) for its whole making, and
/// every other test that wanted it blocked another one in swift_once: the pool starved.
public actor SharedFixture<Value: Sendable> {
    private let make: @Sendable () throws -> Value
    private var making: Task<Value, any Error>?

    public init(_ make: @escaping @Sendable () throws -> Value) {
        self.make = make
    }

    public func value() async throws -> Value {
        if let making { return try await making.value }
        let make = self.make
        let task = Task { try await OffPool.run { () throws -> Value in try make() } }
        making = task
        return try await task.value
    }
}
