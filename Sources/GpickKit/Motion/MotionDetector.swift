import CImaging
import FoundationEssentials
import GpickBase
#if canImport(Glibc)
import Glibc
#endif

/// A rectangle in relative coordinates (0…1 of the frame's width and height).
public struct MotionBox: Sendable, Equatable {
    public var x: Double, y: Double, width: Double, height: Double
}

/// Motion starting or ending in a zone.
public struct MotionEvent: Sendable, Equatable {
    public enum Kind: String, Sendable { case started, ended }
    public var kind: Kind
    public var zone: String
    /// The share of the zone that changed: in the frame that started it, or the most in any
    /// frame of it (ended).
    public var area: Double
    /// Where it changed: in the frame that started it, or everywhere it moved (ended).
    public var box: MotionBox
    /// How far the changed cells moved from the background, on average (0…1 of full scale).
    public var score: Double
    /// Stream time (s) of the first frame that showed it (started), or the last (ended).
    public var time: Double
    /// For a start in a session: seconds from that first frame entering the session's outputs
    /// to the event (the frames needed to be sure, and the comparison).
    public var latency: Double? = nil
}

extension MotionEvent {
    /// The event's fields as every report spells them (`--json`, scripts): times in seconds,
    /// the box as [x, y, width, height] of the frame.
    public var fields: EventFields {
        let round = { (v: Double) in (v * 10000).rounded() / 10000 }
        var f: EventFields = ["zone": zone, "area": round(area), "score": round(score), "time": round(time),
                              "box": JSONValue.array([box.x, box.y, box.width, box.height].map { JSONValue.number(round($0)) })]
        if let latency { f["latency"] = round(latency) }
        return f
    }
}

/// Finds motion in a stream of frames, each given as a small luma picture (`MotionSettings`'
/// grid) with its time: compared with a running background, with light changes over the whole
/// scene taken out (the frame is scaled to the background's mean first, and a change over most
/// of the frame at once renews the background). Zones start and end independently. Not thread
/// safe: one caller, frames in order.
public final class MotionDetector {
    public let settings: MotionSettings
    public let gridWidth: Int
    public let gridHeight: Int
    private let watched: [UInt8]
    private let watchedCells: Int
    private let zones: [ZoneState]
    private var background: [Float] = []
    private var changedFor: [Float]
    private var changed: [UInt8]
    private var lastTime: Double?

    private final class ZoneState {
        let zone: MotionZone
        let cells: [UInt8]
        let count: Int
        var inARow = 0
        var candidate: Double = 0
        var active = false
        var lastSeen: Double = 0
        var peak: Double = 0
        var union: (x0: Int, y0: Int, x1: Int, y1: Int)?
        init(zone: MotionZone, cells: [UInt8]) {
            self.zone = zone
            self.cells = cells
            count = cells.reduce(0) { $0 + Int($1) }
        }
    }

    /// For frames of `width` × `height`; `ignoring`: parts of the frame that are not the scene
    /// (the test source's stamp), masked besides the settings' own masks.
    public init(settings: MotionSettings, width: Int, height: Int, ignoring: [MotionPolygon] = []) {
        self.settings = settings
        gridWidth = max(8, settings.gridWidth)
        gridHeight = max(4, Int((Double(gridWidth) * Double(height) / Double(max(1, width))).rounded()))
        let (w, h) = (gridWidth, gridHeight)
        let masks = settings.masks + ignoring
        var watched = [UInt8](repeating: 0, count: w * h)
        var zoneCells: [[UInt8]] = settings.reportedZones.map { _ in [UInt8](repeating: 0, count: w * h) }
        for y in 0..<h {
            for x in 0..<w where !masks.contains(where: { $0.contains(cellX: x, cellY: y, w: w, h: h) }) {
                for (k, zone) in settings.reportedZones.enumerated() where zone.area.contains(cellX: x, cellY: y, w: w, h: h) {
                    zoneCells[k][y * w + x] = 1
                    watched[y * w + x] = 1
                }
            }
        }
        self.watched = watched
        watchedCells = watched.reduce(0) { $0 + Int($1) }
        zones = zip(settings.reportedZones, zoneCells).map { ZoneState(zone: $0, cells: $1) }
        changed = [UInt8](repeating: 0, count: w * h)
        changedFor = [Float](repeating: 0, count: w * h)
    }

    /// Fills `grid` (`gridWidth` × `gridHeight`) from an 8-bit luma plane.
    public func shrink(plane: UnsafeRawPointer, stride: Int, width: Int, height: Int, into grid: inout [UInt8]) {
        if grid.count != gridWidth * gridHeight { grid = [UInt8](repeating: 0, count: gridWidth * gridHeight) }
        grid.withUnsafeMutableBufferPointer { g in
            gpick_luma_grid(plane.assumingMemoryBound(to: UInt8.self), Int32(stride), Int32(width), Int32(height), g.baseAddress,
                            Int32(gridWidth), Int32(gridHeight))
        }
    }

    /// One frame's small picture at stream time `time` (s): the motion that started or ended.
    public func process(_ grid: [UInt8], at time: Double) -> [MotionEvent] {
        precondition(grid.count == gridWidth * gridHeight, "a grid of \(gridWidth) × \(gridHeight)")
        guard !background.isEmpty, let last = lastTime, watchedCells > 0 else {
            background = grid.map(Float.init)
            lastTime = time
            return []
        }
        let dt = min(1, max(0, time - last))
        lastTime = time
        // The frame scaled to the background's light (the median ratio, which a person over a
        // part of the scene does not move): light over the whole scene is not motion.
        let still = Float(1 - exp(-dt / settings.backgroundSeconds))
        var sumDiff = 0.0
        let count = grid.withUnsafeBufferPointer { g in
            background.withUnsafeMutableBufferPointer { b in
                watched.withUnsafeBufferPointer { m in
                    changed.withUnsafeMutableBufferPointer { c in
                        changedFor.withUnsafeMutableBufferPointer { f in
                            let gain = gpick_motion_gain(g.baseAddress, b.baseAddress, m.baseAddress, Int32(g.count))
                            return Int(gpick_motion_step(g.baseAddress, b.baseAddress, f.baseAddress, m.baseAddress, c.baseAddress,
                                                         Int32(gridWidth), Int32(gridHeight), gain, Float(settings.threshold),
                                                         Float(settings.relativeThreshold), still,
                                                         Float(dt), Float(settings.becomesSceneAfter), &sumDiff))
                        }
                    }
                }
            }
        }
        // Most of the frame at once: a lamp, a cloud, the exposure settling. The background is
        // taken anew, and no zone counts this frame.
        if Double(count) > settings.lightChange * Double(watchedCells) {
            background = grid.map(Float.init)
            changedFor = [Float](repeating: 0, count: changedFor.count)
            for z in zones { z.inARow = 0 }
            return zones.compactMap { ended($0, at: time) }
        }
        let score = count > 0 ? min(1, sumDiff / Double(count) / 255) : 0
        var events: [MotionEvent] = []
        for z in zones where z.count > 0 {
            // In C: a cell at a time in Swift was most of the watch's time in a debug build,
            // enough for the comparison to fall behind the frames on a loaded machine.
            var b: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
            let n = Int(changed.withUnsafeBufferPointer { c in
                z.cells.withUnsafeBufferPointer { cells in
                    withUnsafeMutablePointer(to: &b) {
                        $0.withMemoryRebound(to: Int32.self, capacity: 4) {
                            gpick_zone_tally(c.baseAddress, cells.baseAddress, Int32(gridWidth), Int32(gridHeight), $0)
                        }
                    }
                }
            })
            let (x0, y0, x1, y1) = (Int(b.0), Int(b.1), Int(b.2), Int(b.3))
            let area = Double(n) / Double(z.count)
            guard area >= settings.minArea else {
                z.inARow = 0
                if let e = ended(z, at: time) { events.append(e) }
                continue
            }
            z.inARow += 1
            if z.inARow == 1, !z.active { z.candidate = time; z.union = nil; z.peak = 0 }
            z.lastSeen = time
            z.peak = max(z.peak, area)
            z.union = z.union.map { (min($0.x0, x0), min($0.y0, y0), max($0.x1, x1), max($0.y1, y1)) } ?? (x0, y0, x1, y1)
            if !z.active, z.inARow >= settings.startFrames {
                z.active = true
                events.append(MotionEvent(kind: .started, zone: z.zone.name, area: area, box: box(x0, y0, x1, y1), score: score, time: z.candidate))
            }
        }
        return events
    }

    /// The stream ended at `time`: motion under way ends.
    public func finish(at time: Double) -> [MotionEvent] {
        zones.compactMap { z in z.active ? ended(z, at: .infinity) : nil }
    }

    /// The zone's motion, if it has been still for `endAfter` by `time`.
    private func ended(_ z: ZoneState, at time: Double) -> MotionEvent? {
        guard z.active, time - z.lastSeen >= settings.endAfter else { return nil }
        z.active = false
        z.inARow = 0
        let u = z.union ?? (0, 0, 0, 0)
        return MotionEvent(kind: .ended, zone: z.zone.name, area: z.peak, box: box(u.x0, u.y0, u.x1, u.y1), score: 0, time: z.lastSeen)
    }

    private func box(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> MotionBox {
        MotionBox(x: Double(x0) / Double(gridWidth), y: Double(y0) / Double(gridHeight),
                  width: Double(x1 - x0 + 1) / Double(gridWidth), height: Double(y1 - y0 + 1) / Double(gridHeight))
    }
}
