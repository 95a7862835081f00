import FoundationEssentials
import Glibc
import GstCore

public enum StillFormat: String, Sendable, CaseIterable {
    case jpeg, png
    public var pipelineName: String { "still-\(rawValue)" }
    public var fileExtension: String { self == .jpeg ? "jpg" : "png" }

    public init(path: OutputPath) throws(GpickError) {
        switch path.pathExtension {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        default:
            throw GpickError(.usage, "unknown image extension \".\(path.pathExtension)\" in \(path.name) (use .jpg, .jpeg or .png, or --format)")
        }
    }
}

/// Encodes raw frames to still images in a small pipeline of its own (appsrc → encoder → appsink)
/// that stays up between stills; gpick writes the bytes itself, atomically.
///
/// `@unchecked Sendable` invariant: `pending` is guarded by `lock`; the pipeline is only driven
/// from the caller's task (push) and its streaming thread (callbacks).
public final class StillEncoder: @unchecked Sendable {
    public let format: StillFormat
    private let pipeline: Pipeline
    private let input: AppSrc
    private let lock = Lock()
    /// Waiting encodes in push order, with where each still is to be written (if anywhere).
    private var pending: [(target: OutputPath?, waiter: CheckedContinuation<Encoded, Error>)] = []
    private var ready: [[UInt8]] = []
    private var failure: GpickError?
    private var busTask: Task<Void, Never>?

    /// `quality`: JPEG quality 1…100 (PNG ignores it).
    public convenience init(format: StillFormat, quality: Int? = nil, library: PipelineLibrary) throws(GpickError) {
        let file = try library.load(format.pipelineName)
        var values: [String: Parameter.Value] = [:]
        if let q = quality, let p = file.parameter("quality") { values["quality"] = try p.parse(String(q)) }
        try self.init(file: file, values: values, format: format)
    }

    /// An encoder from any pipeline file of kind encoder (taps `input` and `output`).
    public init(file: PipelineFile, values: [String: Parameter.Value], format: StillFormat) throws(GpickError) {
        self.format = format
        let bin = try PipelineBuilder.build(file, values: values, asPipeline: true)
        guard let p = bin as? Pipeline, let inTap = file.tap("input"), let outTap = file.tap("output") else {
            throw GpickError(.pipeline, "\(file.path): an encoder needs taps input (appsrc) and output (appsink)")
        }
        pipeline = p
        do {
            input = try AppSrc(try p.requireElement(named: inTap.element))
            let out = try AppSink(try p.requireElement(named: outTap.element))
            out.setCallbacks(onSample: { [weak self] s in self?.deliver(s.data) })
        } catch {
            throw GpickError(.pipeline, "\(file.path): \(error.message)")
        }
        let messages = p.bus.messages()
        busTask = Task.detached { [weak self] in
            for await m in messages {
                if case .error(let e) = m { self?.fail(GpickError(.runtime, "still encoder: \(e.description)")) }
            }
        }
        do { try p.setState(.playing) } catch { throw GpickError(.runtime, "still encoder: \(error.message)") }
    }

    deinit { busTask?.cancel() }

    private struct Encoded { let bytes: [UInt8]; let written: Bool }

    private func deliver(_ bytes: [UInt8]) {
        lock.lock()
        if pending.isEmpty {
            ready.append(bytes)
            lock.unlock()
            return
        }
        let (target, waiter) = pending.removeFirst()
        lock.unlock()
        // Written here, on the encoder's own streaming thread: the still reaches its file without
        // a hop to the cooperative pool and out to another thread for the blocking write.
        if let target {
            do { try AtomicWrite.write(bytes, to: target) } catch { waiter.resume(throwing: error); return }
        }
        waiter.resume(returning: Encoded(bytes: bytes, written: target != nil))
    }

    private func fail(_ e: GpickError) {
        lock.lock()
        if failure == nil { failure = e }
        let waiters = pending
        pending.removeAll()
        lock.unlock()
        for w in waiters { w.waiter.resume(throwing: e) }
    }

    /// Encodes one frame (results come back in push order) and, with a `target`, writes it there
    /// atomically before returning its bytes.
    public func encode(_ frame: Sample, storingTo target: OutputPath? = nil) async throws(GpickError) -> [UInt8] {
        if let f = lock.withLock({ failure }) { throw f }
        do { try input.push(frame) } catch { throw GpickError(.runtime, "still encoder: \(error.message)") }
        let encoded: Encoded
        do {
            encoded = try await withCheckedThrowingContinuation { (c: CheckedContinuation<Encoded, Error>) in
                lock.lock()
                if let f = failure { lock.unlock(); c.resume(throwing: f); return }
                if !ready.isEmpty { let b = ready.removeFirst(); lock.unlock(); c.resume(returning: Encoded(bytes: b, written: false)); return }
                pending.append((target, c))
                lock.unlock()
            }
        } catch let e as GpickError { throw e } catch { throw GpickError(.runtime, "\(error)") }
        // Encoded before this call waited for it: written from here instead.
        if let target, !encoded.written { try await AtomicWrite.store(encoded.bytes, to: target) }
        return encoded.bytes
    }

    public func close() {
        input.endOfStream()
        _ = try? pipeline.setState(.null)
        busTask?.cancel()
    }
}
