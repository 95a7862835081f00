import GpickBase
import GstCore

/// Whether a PipeWire camera node can be connected: a stream to it must deliver one frame, in
/// a raw format at a size it can make, as a session's would. (A node PipeWire lists may still
/// refuse this client, or never start without a driver.)
enum PipeWireProbe {
    /// Fixed text: the node is set as a property, never written into the description.
    static let description = "pipewiresrc name=src client-name=gpick num-buffers=1 ! videoconvert ! videoscale"
        + " ! video/x-raw,width=320,height=240 ! fakesink sync=false"

    static func connect(target: String, timeout: Double) async -> Camera.Access {
        // A stream that never starts can hold its state change for a long time: the answer is
        // given at the deadline, and the probe winds down on its own.
        let probe = Task { await run(target: target, timeout: timeout) }
        let answer = try? await withTimeout(timeout + 0.5) { await probe.value }
        return answer ?? .denied("PipeWire did not start a stream to it within \(Int(timeout)) s", fix: nil)
    }

    private static func run(target: String, timeout: Double) async -> Camera.Access {
        let pipeline: Pipeline
        do {
            pipeline = try await Pipeline.parse(description)
            try pipeline.requireElement(named: "src").set("target-object", target)
        } catch {
            return .denied("cannot make a PipeWire stream: \(error.message)", fix: nil)
        }
        let messages = pipeline.bus.messages()
        defer { Task { _ = try? await pipeline.setState(.null) } }
        do {
            _ = try await pipeline.setState(.playing)
        } catch {
            return .denied("PipeWire refused a stream to it", fix: nil)
        }
        let result = try? await withTimeout(timeout) { () -> Camera.Access in
            for await m in messages {
                switch m {
                case .endOfStream: return .ok
                case .error(let e): return .denied("PipeWire refused a stream to it: \(e.message.trimmedFullStop)", fix: nil)
                default: continue
                }
            }
            return .denied("its PipeWire stream ended without a frame", fix: nil)
        }
        return result ?? .denied("connected, but no frame came within \(Int(timeout)) s", fix: nil)
    }
}
