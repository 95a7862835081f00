import GpickBase

/// The memory that decodes in flight may hold together, in bytes: a decode waits (on its own
/// thread, never the cooperative pool) until what the others hold leaves room for it, so two
/// 12 MP HEICs, each decoded whole, take turns while JPEGs shrunk on load share the cores. One
/// decode larger than the whole budget runs alone. `DecodeGate` bounds the count (a core's
/// worth); this bounds the pixels, so a batch of phone photos peaks no higher than one decode.
final class DecodeBudget: Sendable {
    private struct State {
        var used = 0
        var running = 0
    }
    private let state = Monitor(State())
    let bytes: Int

    init(bytes: Int) { self.bytes = max(1, bytes) }

    /// Large enough for one 12 MP photo decoded whole (libheif's planes, the RGB picture and
    /// libvips' copy), not for two.
    static let shared = DecodeBudget(bytes: 160 << 20)

    /// What decoding `header` for `box` holds at its peak: a whole-image decode holds the
    /// decoder's planes, the picture and libvips' copy of it (about 2.5 times the picture); a
    /// streamed one holds its output and a few strips.
    static func cost(_ header: ImageHeader, decoded: (width: Int, height: Int)) -> Int {
        let picture = decoded.width * decoded.height * max(1, header.bands) * max(1, header.bytesPerBand)
        return header.decodesWhole ? picture * 5 / 2 : picture + decoded.width * 64 * max(1, header.bands)
    }

    /// Runs `work` once `cost` bytes fit beside what the decodes in flight hold.
    @available(*, noasync, message: "it waits for memory: run it off the cooperative pool")
    func run<T>(cost: Int, _ work: () throws(GpickError) -> T) throws(GpickError) -> T {
        state.wait(until: { s in s.running == 0 || s.used + cost <= bytes }) { s in
            s.used += cost
            s.running += 1
        }
        defer {
            state.withLock { s in
                s.used -= cost
                s.running -= 1
            }
        }
        return try work()
    }
}
