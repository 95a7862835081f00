import FoundationEssentials
import Glibc
import GpickFormats
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
            throw GpickError(.usage, "unknown image extension \".\(path.pathExtension)\" in \(path.name): use .jpg, .jpeg or .png", remedy: .chooseFormat)
        }
    }
}

/// Encodes raw frames to still images in a small pipeline of its own (appsrc → encoder → appsink)
/// that stays up between stills; gpick adds the EXIF block (`StillExif`: when, which camera) and
/// writes the bytes itself, atomically.
public final class StillEncoder: Sendable {
    public let format: StillFormat
    private let pipeline: Pipeline
    private let input: AppSrc
    private let queue = Locked(Queue())
    private let busTask = Locked<Task<Void, Never>?>(nil)

    /// Read and written only under `queue`'s lock.
    private struct Queue: ~Copyable {
        /// Waiting encodes in push order, with where each still is to be written (if anywhere).
        var pending: [(target: OutputPath?, exif: StillExif?, waiter: CheckedContinuation<Encoded, Error>)] = []
        var ready: [[UInt8]] = []
        var failure: GpickError?
    }

    /// An encoder for `format`, built and started off the cooperative pool. `quality`: JPEG
    /// quality 1…100 (PNG ignores it).
    public static func make(format: StillFormat, quality: Int? = nil, library: PipelineLibrary) async throws(GpickError) -> StillEncoder {
        try await OffPool.run { () throws(GpickError) in try StillEncoder(format: format, quality: quality, library: library) }
    }

    @available(*, noasync, message: "it parses and starts a pipeline: await StillEncoder.make")
    public convenience init(format: StillFormat, quality: Int? = nil, library: PipelineLibrary) throws(GpickError) {
        let file = try library.load(format.pipelineName)
        var values: [String: Parameter.Value] = [:]
        if let q = quality, let p = file.parameter("quality") { values["quality"] = try p.parse(String(q)) }
        try self.init(file: file, values: values, format: format)
    }

    /// An encoder from any pipeline file of kind encoder (taps `input` and `output`).
    @available(*, noasync, message: "it parses and starts a pipeline: build it in OffPool")
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
        let task = Task.detached { [weak self] in
            for await m in messages {
                if case .error(let e) = m { self?.fail(GpickError(.runtime, "still encoder: \(e.description)", detail: e.diagnostic)) }
            }
        }
        busTask.withLock { $0 = task }
        do { try p.setState(.playing) } catch { throw GpickError(.runtime, "still encoder: \(error.message)") }
    }

    deinit { busTask.withLock { $0 }?.cancel() }

    /// `final`: stamped with its EXIF (and written, when it had a target) by `deliver`.
    private struct Encoded { let bytes: [UInt8]; let final: Bool }

    private func deliver(_ encoded: [UInt8]) {
        guard let (target, exif, waiter) = queue.withLock({ q -> (OutputPath?, StillExif?, CheckedContinuation<Encoded, Error>)? in
            guard !q.pending.isEmpty else { q.ready.append(encoded); return nil }
            return q.pending.removeFirst()
        }) else { return }
        // Stamped and written here, on the encoder's own streaming thread: the still reaches its
        // file without a hop to the cooperative pool and out to another thread for the blocking write.
        let bytes: [UInt8]
        do {
            bytes = try stamp(encoded, exif)
            if let target { try AtomicWrite.write(bytes, to: target) }
        } catch {
            waiter.resume(throwing: error)
            return
        }
        waiter.resume(returning: Encoded(bytes: bytes, final: true))
    }

    private func stamp(_ bytes: [UInt8], _ exif: StillExif?) throws(GpickError) -> [UInt8] {
        guard let exif else { return bytes }
        return format == .jpeg ? try exif.insert(into: bytes) : try exif.insert(intoPNG: bytes)
    }

    private func fail(_ e: GpickError) {
        let waiters = queue.withLock { q -> [CheckedContinuation<Encoded, Error>] in
            if q.failure == nil { q.failure = e }
            defer { q.pending.removeAll() }
            return q.pending.map(\.waiter)
        }
        for w in waiters { w.resume(throwing: e) }
    }

    /// Encodes one frame taken now by `camera` (results come back in push order), with its EXIF
    /// block, and with a `target` writes it there atomically before returning its bytes.
    public func encode(_ frame: Sample, storingTo target: OutputPath? = nil, camera: CameraIdentity) async throws(GpickError) -> [UInt8] {
        try await encode(frame, storingTo: target, exif: StillExif(frame: frame, camera: camera))
    }

    /// The same with the EXIF block given (nil: none, for bytes that are not a user's photo).
    public func encode(_ frame: Sample, storingTo target: OutputPath? = nil, exif: StillExif?) async throws(GpickError) -> [UInt8] {
        if let f = queue.withLock({ $0.failure }) { throw f }
        do { try input.push(frame) } catch { throw GpickError(.runtime, "still encoder: \(error.message)") }
        let encoded: Encoded
        do {
            encoded = try await withCheckedThrowingContinuation { (c: CheckedContinuation<Encoded, Error>) in
                let now = queue.withLock { q -> Result<Encoded, Error>? in
                    if let f = q.failure { return .failure(f) }
                    if !q.ready.isEmpty { return .success(Encoded(bytes: q.ready.removeFirst(), final: false)) }
                    q.pending.append((target, exif, c))
                    return nil
                }
                if let now { c.resume(with: now) }
            }
        } catch let e as GpickError { throw e } catch { throw GpickError(.runtime, "\(error)") }
        // Encoded before this call waited for it: stamped and written from here instead.
        guard !encoded.final else { return encoded.bytes }
        let bytes = try stamp(encoded.bytes, exif)
        if let target { try await AtomicWrite.store(bytes, to: target) }
        return bytes
    }

    /// Stops the encoder's pipeline, off the cooperative pool.
    public func close() async {
        await OffPool.run { self.closeBlocking() }
    }

    @available(*, noasync, message: "it stops a pipeline: await close()")
    public func closeBlocking() {
        input.endOfStream()
        _ = try? pipeline.setState(.null)
        busTask.withLock { $0 }?.cancel()
    }
}

extension StillExif {
    /// The EXIF of `frame`, taken now by `camera`: its pixel size, upright, by this gpick.
    public init(frame: Sample, camera: CameraIdentity, takenAt: Double = StillExif.now()) {
        let info = frame.videoInfo
        self.init(camera: camera, software: "gpick \(GpickVersion.current)", takenAt: takenAt,
                  width: info?.width ?? 0, height: info?.height ?? 0)
    }
}
