import GpickBase

/// A polygon in relative coordinates: (0, 0) the frame's top-left corner, (1, 1) its bottom-right.
public struct MotionPolygon: Sendable, Equatable {
    public var points: [(x: Double, y: Double)]

    public init(_ points: [(x: Double, y: Double)]) throws(GpickError) {
        guard points.count >= 3 else { throw GpickError(.usage, "a zone or mask needs at least 3 points, not \(points.count)") }
        for p in points where !(0...1).contains(p.x) || !(0...1).contains(p.y) {
            throw GpickError(.usage, "point \(p.x),\(p.y) is outside the frame (each coordinate is 0…1)")
        }
        self.points = points
    }

    /// The whole frame.
    public static let frame = try! MotionPolygon([(0, 0), (1, 0), (1, 1), (0, 1)])

    /// `x1,y1 x2,y2 …`, as zones are written in scripts and on the command line.
    public init(parsing text: String) throws(GpickError) {
        var points: [(x: Double, y: Double)] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            let xy = word.split(separator: ",")
            guard xy.count == 2, let x = Double(xy[0]), let y = Double(xy[1]) else {
                throw GpickError(.usage, "\"\(word)\" is not a point (write x,y with each 0…1, e.g. 0.5,0.25)")
            }
            points.append((x, y))
        }
        try self.init(points)
    }

    public static func == (a: MotionPolygon, b: MotionPolygon) -> Bool {
        a.points.count == b.points.count && zip(a.points, b.points).allSatisfy { $0.x == $1.x && $0.y == $1.y }
    }

    /// Whether the centre of cell (x, y) of a `w` × `h` grid is inside (even-odd rule).
    func contains(cellX x: Int, cellY y: Int, w: Int, h: Int) -> Bool {
        let px = (Double(x) + 0.5) / Double(w), py = (Double(y) + 0.5) / Double(h)
        var inside = false
        var j = points.count - 1
        for i in points.indices {
            let (xi, yi) = points[i], (xj, yj) = points[j]
            if (yi > py) != (yj > py), px < (xj - xi) * (py - yi) / (yj - yi) + xi { inside.toggle() }
            j = i
        }
        return inside
    }
}

/// A named part of the frame that motion is reported for.
public struct MotionZone: Sendable, Equatable {
    public var name: String
    public var area: MotionPolygon
    public init(name: String, area: MotionPolygon) {
        self.name = name
        self.area = area
    }
}

/// How motion is found. The defaults suit a fixed camera watching a scene about as wide as a
/// room or a street, at any resolution (the frame is looked at as a small luma picture).
public struct MotionSettings: Sendable, Equatable {
    /// Width of the small picture compared (its height follows the frame's aspect).
    public var gridWidth = 160
    /// How far a cell's luma must move from the background to have changed (0…255)…
    public var threshold = 20.0
    /// …or this share of the background's level, where that is more: bright paint, sky and
    /// lamps clip differently as the camera's exposure moves.
    public var relativeThreshold = 0.15
    /// The share of a zone that must change for motion (0…1).
    public var minArea = 0.006
    /// Zones reported by name; none: the whole frame, as zone "frame".
    public var zones: [MotionZone] = []
    /// Parts never looked at (a road beyond the garden, a tree in the wind, a clock).
    public var masks: [MotionPolygon] = []
    /// Frames in a row that must show motion before it starts (one frame of noise is not motion).
    public var startFrames = 2
    /// Seconds without motion before it ends.
    public var endAfter = 1.0
    /// A change over more than this share of the frame at once is light (a lamp, a cloud,
    /// the camera's exposure), not motion: the background is taken anew.
    public var lightChange = 0.45
    /// How fast the background follows the scene where nothing changed (a time constant, s).
    public var backgroundSeconds = 2.0
    /// A change that stays this long (s) becomes the scene: a parked car, a chair moved.
    public var becomesSceneAfter = 60.0

    public init() {}

    /// The zones reported: the given ones, or the whole frame.
    public var reportedZones: [MotionZone] { zones.isEmpty ? [MotionZone(name: "frame", area: .frame)] : zones }
}
