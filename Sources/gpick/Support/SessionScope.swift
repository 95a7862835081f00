import GpickCLI
import FoundationEssentials
import GpickKit

/// The one shape of a command's session: made from the configuration, its events reported,
/// started (or only prepared, so outputs attach before the first frame), and stopped afterwards
/// whether `body` succeeds or throws.
func withSession<T>(_ configuration: SessionConfiguration, events: Events, prepareOnly: Bool = false,
                    _ body: (CaptureSession) async throws -> T) async throws -> T {
    let session = CaptureSession(configuration)
    session.onEvent { events.sessionEvent($0) }
    do {
        if prepareOnly { try await session.prepare() } else { try await session.start() }
        let result = try await body(session)
        await session.stop()
        return result
    } catch {
        await session.stop()
        throw error
    }
}
