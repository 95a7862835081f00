import Foundation
@testable import GpickKit
import Testing

/// The detection rule on small luma pictures made here, frame by frame: a square that moves is
/// motion from the frame it first moves in to the last, in its zone only; light over the whole
/// scene, slow or sudden, is not; a mask hides what it covers.
@Suite struct MotionDetectorTests {
    static let (w, h) = (160, 90)

    /// A textured still scene (a gradient and a fixed pattern, as a real room has), brightened by
    /// `gain`, with a bright square at cell (x, y) of side 12 if given.
    static func frame(square: (x: Int, y: Int)? = nil, gain: Double = 1) -> [UInt8] {
        var f = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var v = 60 + Double(x) * 0.5 + Double((x * 7 + y * 13) % 11)
                if let s = square, (s.x..<s.x + 12).contains(x), (s.y..<s.y + 12).contains(y) { v = 220 }
                f[y * w + x] = UInt8(max(0, min(255, (v * gain).rounded())))
            }
        }
        return f
    }

    static func detector(_ change: (inout MotionSettings) -> Void = { _ in }) -> MotionDetector {
        var s = MotionSettings()
        change(&s)
        return MotionDetector(settings: s, width: 1280, height: 720)
    }

    /// Frames at 30 fps: still until frame 30, the square moving 2 cells a frame along y = 40
    /// from frame 30 to 79, then still again (square gone) to frame 150.
    static func run(_ d: MotionDetector, gain: (Int) -> Double = { _ in 1 }) -> [MotionEvent] {
        var events: [MotionEvent] = []
        for i in 0..<150 {
            let square: (Int, Int)? = (30..<80).contains(i) ? (10 + (i - 30) * 2, 40) : nil
            events += d.process(frame(square: square, gain: gain(i)), at: Double(i) / 30)
        }
        return events + d.finish(at: 5)
    }

    @Test func aMovingSquareStartsAndEndsMotionAtItsFrames() throws {
        let events = Self.run(Self.detector())
        #expect(events.map(\.kind) == [.started, .ended], "\(events)")
        let started = try #require(events.first), ended = try #require(events.last)
        // It first differs from the background in frame 30, and is last there in frame 79.
        #expect(abs(started.time - 30.0 / 30) < 0.001 && started.zone == "frame", "\(started)")
        #expect(abs(ended.time - 79.0 / 30) < 0.001, "\(ended)")
        // Where it moved: from x 10 to about 120, y 40 to 52, in cells of the 160 × 90 grid.
        #expect(abs(ended.box.y - 40.0 / 90) < 0.02 && abs(ended.box.height - 12.0 / 90) < 0.03, "\(ended.box)")
        #expect(ended.box.x < 0.1 && ended.box.x + ended.box.width > 0.7, "\(ended.box)")
        #expect(started.area > 0.005 && started.score > 0.1, "\(started)")
    }

    /// The scene brightened by 60 % over 4 s, and a lamp switched on at once (+50 %): no motion.
    @Test func lightOverTheWholeSceneIsNotMotion() {
        let still = { (i: Int) -> [UInt8] in Self.frame(gain: 1 + 0.6 * min(1, Double(i) / 120)) }
        let ramp = Self.detector()
        let rampEvents = (0..<150).flatMap { ramp.process(still($0), at: Double($0) / 30) }
        #expect(rampEvents.isEmpty, "\(rampEvents)")
        let lamp = Self.detector()
        let lampEvents = (0..<150).flatMap { i in lamp.process(Self.frame(gain: i < 60 ? 1 : 1.5), at: Double(i) / 30) }
        #expect(lampEvents.isEmpty, "\(lampEvents)")
        // The moving square under the ramp is still found.
        let both = Self.run(Self.detector(), gain: { 1 + 0.4 * Double($0) / 150 })
        #expect(both.map(\.kind) == [.started, .ended], "\(both)")
    }

    @Test func aMaskHidesWhatItCovers() throws {
        let band = try MotionPolygon(parsing: "0,0.4 1,0.4 1,0.62 0,0.62")
        #expect(Self.run(Self.detector { $0.masks = [band] }).isEmpty)
    }

    /// Two zones: the square's path crosses the left one only.
    @Test func zonesSayWhichOneSawIt() throws {
        let left = try MotionPolygon(parsing: "0,0 0.5,0 0.5,1 0,1"), top = try MotionPolygon(parsing: "0,0 1,0 1,0.3 0,0.3")
        let events = Self.run(Self.detector { $0.zones = [MotionZone(name: "left", area: left), MotionZone(name: "top", area: top)] })
        #expect(events.map(\.zone) == ["left", "left"] && events.map(\.kind) == [.started, .ended], "\(events)")
        #expect(throws: GpickError.self) { try MotionPolygon(parsing: "0,0 1,0") }
        #expect(throws: GpickError.self) { try MotionPolygon(parsing: "0,0 1.5,0 1,1") }
        #expect(throws: GpickError.self) { try MotionPolygon(parsing: "0,0 a,b 1,1") }
    }

    /// Noise of a few levels everywhere, and one cell flickering: not motion.
    @Test func noiseAndALoneCellAreNotMotion() {
        let d = Self.detector()
        var rng = SystemRandomNumberGenerator()
        var events: [MotionEvent] = []
        for i in 0..<150 {
            var f = Self.frame()
            for k in f.indices { f[k] = UInt8(max(0, min(255, Int(f[k]) + Int.random(in: -4...4, using: &rng)))) }
            if i % 2 == 0 { f[45 * Self.w + 80] = 255 }
            events += d.process(f, at: Double(i) / 30)
        }
        #expect(events.isEmpty, "\(events)")
    }
}
