import Foundation
import GpickBase

/// A profile image, as a model: what is behind the text, the text, the shape and the
/// size, and the colours last used. It is saved as JSON (`--save-model`) and rendered again
/// from it (`--model`) to the same bytes.
public struct ProfileImage: Sendable, Equatable, Codable {
    public enum BackgroundKind: String, Sendable, Codable, CaseIterable {
        /// A gradient from the palette, picked by the text (AdwAvatar's rule).
        case automatic = "auto"
        case color
        case gradient
        case image
    }

    /// The model's format version.
    public var version = 1
    public var background: BackgroundKind = .automatic
    /// The solid colour (one), or the gradient's top and bottom (two).
    public var colors: [AvatarColor] = []
    /// The image, kept while a colour is shown: choosing the colour and then changing your mind
    /// brings it back.
    public var image: ImageReference?
    public var text = ""
    public var textMode: TextMode = .automatic
    /// nil: black or white, whichever reads better over the pixels under the text.
    public var textColor: AvatarColor?
    public var shape: AvatarShape = .circle
    public var size = 500
    /// What JPEG's corners are filled with (JPEG has no transparency).
    public var matte: AvatarColor = .white
    /// The colours last chosen, newest first (at most `lastColorsKept`).
    public var lastColors: [AvatarColor] = []

    public static let lastColorsKept = 8
    public static let sizes = 1...4096

    public init() {}

    /// A solid colour.
    public mutating func setColor(_ c: AvatarColor) {
        background = .color
        colors = [c]
        remember(c)
    }

    /// A vertical gradient; equal colours, or a transparent bottom, are a solid colour (stored
    /// so).
    public mutating func setGradient(_ top: AvatarColor, _ bottom: AvatarColor) {
        if top == bottom || bottom.isTransparent {
            setColor(top)
            return
        }
        background = .gradient
        colors = [top, bottom]
        remember(bottom)
        remember(top)
    }

    public mutating func setImage(_ reference: ImageReference) {
        background = .image
        image = reference
    }

    /// The model's own rules applied to a model made elsewhere (a page, a hand-edited file): a
    /// gradient of equal colours, or to transparent, is stored as the solid colour.
    public mutating func normalise() {
        if background == .gradient, colors.count >= 2, colors[0] == colors[1] || colors[1].isTransparent {
            background = .color
            colors = [colors[0]]
        }
    }

    mutating func remember(_ c: AvatarColor) {
        lastColors.removeAll { $0 == c }
        lastColors.insert(c, at: 0)
        if lastColors.count > Self.lastColorsKept { lastColors.removeLast(lastColors.count - Self.lastColorsKept) }
    }

    /// The text as drawn (initials of a name, or the text as given).
    public var shownText: String { Initials.shown(text, mode: textMode) }

    /// What the renderer paints behind the text, the model's rules applied.
    public var resolvedBackground: ResolvedBackground {
        switch background {
        case .color where colors.count >= 1: return .color(colors[0])
        case .gradient where colors.count >= 2:
            return colors[0] == colors[1] || colors[1].isTransparent ? .color(colors[0]) : .gradient(colors[0], colors[1])
        case .image where image != nil: return .image(image!)
        default:
            let g = AvatarPalette.gradient(for: text)
            return .gradient(g.top, g.bottom)
        }
    }

    /// Checks what a hand-edited model could get wrong, in the model's own terms.
    public func validate() throws(GpickError) {
        guard Self.sizes.contains(size) else { throw GpickError(.usage, "size \(size) is out of range: 1 to 4096 pixels") }
        switch background {
        case .color where colors.isEmpty: throw GpickError(.input, "background \"color\" needs one colour in \"colors\"")
        case .gradient where colors.count < 2: throw GpickError(.input, "background \"gradient\" needs two colours in \"colors\"")
        case .image where image == nil: throw GpickError(.input, "background \"image\" needs an \"image\"")
        default: break
        }
        if case .roundRect(let r) = shape, !(0...0.5).contains(r) {
            throw GpickError(.usage, "round-rect radius \(r) is out of range: 0 to half the size")
        }
    }

    // MARK: JSON

    public func json() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(self)) ?? Data()) + [0x0A]
    }

    public static func decode(_ bytes: [UInt8], path: String) throws(GpickError) -> ProfileImage {
        do {
            let model = try JSONDecoder().decode(ProfileImage.self, from: Data(bytes))
            do { try model.validate() } catch { throw GpickError(.input, "\(path): \(error.message)") }
            return model
        } catch let e as GpickError {
            throw e
        } catch let DecodingError.dataCorrupted(context) {
            throw GpickError(.input, "\(path): not a profile image model: \(Self.describe(context))")
        } catch let DecodingError.keyNotFound(key, context) {
            throw GpickError(.input, "\(path): not a profile image model: \"\(key.stringValue)\" is missing\(Self.at(context))")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw GpickError(.input, "\(path): not a profile image model: \(Self.describe(context))")
        } catch {
            throw GpickError(.input, "\(path): not a profile image model")
        }
    }

    static func describe(_ context: DecodingError.Context) -> String {
        // Foundation's own words for a syntax error; ours for the rest.
        if context.codingPath.isEmpty && context.debugDescription.contains("not valid JSON") { return "not valid JSON" }
        return context.debugDescription + at(context)
    }

    static func at(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "" : " (at \(context.codingPath.map(\.stringValue).joined(separator: ".")))"
    }

    enum CodingKeys: String, CodingKey {
        case version, background, colors, image, text, textMode = "text-mode", textColor = "text-color", shape, size, matte
        case lastColors = "last-colors"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decodeIfPresent(Int.self, forKey: .version) ?? 1
        background = try c.decodeIfPresent(BackgroundKind.self, forKey: .background) ?? .automatic
        colors = try c.decodeIfPresent([AvatarColor].self, forKey: .colors) ?? []
        image = try c.decodeIfPresent(ImageReference.self, forKey: .image)
        text = try c.decodeIfPresent(String.self, forKey: .text) ?? ""
        textMode = try c.decodeIfPresent(TextMode.self, forKey: .textMode) ?? .automatic
        let color = try c.decodeIfPresent(String.self, forKey: .textColor) ?? "auto"
        if color == "auto" {
            textColor = nil
        } else if let parsed = AvatarColor(parsing: color) {
            textColor = parsed
        } else {
            throw DecodingError.dataCorruptedError(forKey: .textColor, in: c, debugDescription: "\(color) is not a colour or \"auto\"")
        }
        shape = try c.decodeIfPresent(AvatarShape.self, forKey: .shape) ?? .circle
        size = try c.decodeIfPresent(Int.self, forKey: .size) ?? 500
        matte = try c.decodeIfPresent(AvatarColor.self, forKey: .matte) ?? .white
        lastColors = try c.decodeIfPresent([AvatarColor].self, forKey: .lastColors) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(background, forKey: .background)
        try c.encode(colors, forKey: .colors)
        try c.encodeIfPresent(image, forKey: .image)
        try c.encode(text, forKey: .text)
        try c.encode(textMode, forKey: .textMode)
        try c.encode(textColor?.description ?? "auto", forKey: .textColor)
        try c.encode(shape, forKey: .shape)
        try c.encode(size, forKey: .size)
        try c.encode(matte, forKey: .matte)
        try c.encode(lastColors, forKey: .lastColors)
    }
}

/// What is painted behind the text.
public enum ResolvedBackground: Sendable, Equatable {
    case color(AvatarColor)
    case gradient(AvatarColor, AvatarColor)
    case image(ImageReference)
}

/// An image behind the text: a library asset, a file or a URL, with the SHA-256 of its bytes
/// when it was chosen (a render from the model refuses a file that changed since), and the
/// point the square crop centres on (0–1 of the width and height).
public struct ImageReference: Sendable, Equatable, Codable {
    public var asset: Int64?
    public var path: String?
    public var url: String?
    public var sha256: String?
    public var focus: FocusPoint

    public init(asset: Int64? = nil, path: String? = nil, url: String? = nil, sha256: String? = nil, focus: FocusPoint = .centre) {
        self.asset = asset
        self.path = path
        self.url = url
        self.sha256 = sha256
        self.focus = focus
    }

    enum CodingKeys: String, CodingKey { case asset, path, url, sha256, focus }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        asset = try c.decodeIfPresent(Int64.self, forKey: .asset)
        path = try c.decodeIfPresent(String.self, forKey: .path)
        url = try c.decodeIfPresent(String.self, forKey: .url)
        sha256 = try c.decodeIfPresent(String.self, forKey: .sha256)
        focus = try c.decodeIfPresent(FocusPoint.self, forKey: .focus) ?? .centre
        guard asset != nil || path != nil || url != nil else {
            throw DecodingError.dataCorruptedError(forKey: .path, in: c, debugDescription: "an image needs an asset, a path or a url")
        }
    }
}

/// Where a square crop of a wider or taller image centres: (0.5, 0.5) is the middle.
public struct FocusPoint: Sendable, Equatable, Codable {
    public var x: Double
    public var y: Double
    public static let centre = FocusPoint(x: 0.5, y: 0.5)

    public init(x: Double, y: Double) {
        self.x = min(max(x, 0), 1)
        self.y = min(max(y, 0), 1)
    }

    /// "X,Y", each 0–1.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], (0...1).contains(x), (0...1).contains(y) else { return nil }
        self.init(x: x, y: y)
    }

    public init(from decoder: any Decoder) throws {
        let v = try decoder.singleValueContainer().decode([Double].self)
        guard v.count == 2 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a focus is [x, y]"))
        }
        self.init(x: v[0], y: v[1])
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode([x, y])
    }
}

/// The avatar's outline. Corners outside it are transparent (PNG, WebP) or the matte (JPEG).
public enum AvatarShape: Sendable, Equatable, Codable, CustomStringConvertible {
    case circle
    /// Corners rounded with a radius given as a fraction of the size (0–0.5).
    case roundRect(radius: Double)
    case square

    /// The radius when none is given: a fifth of the size.
    public static let defaultRadius = 0.2

    /// `circle`, `square`, `round-rect`, `round-rect:RADIUS` (pixels of `size`) or `round-rect:N%`.
    /// `option`: how errors name the value (a command line names its flag).
    public init(parsing text: String, size: Int, option: String = "shape") throws(GpickError) {
        switch text {
        case "circle": self = .circle
        case "square": self = .square
        case "round-rect", "roundrect": self = .roundRect(radius: Self.defaultRadius)
        default:
            guard text.hasPrefix("round-rect:") else {
                throw GpickError(.usage, "\(option) \(text): give circle, square, round-rect or round-rect:RADIUS")
            }
            let value = String(text.dropFirst("round-rect:".count))
            let fraction: Double?
            if value.hasSuffix("%") { fraction = Double(value.dropLast()).map { $0 / 100 } } else { fraction = Double(value).map { $0 / Double(size) } }
            guard let f = fraction, f.isFinite, (0...0.5).contains(f) else {
                throw GpickError(.usage, "\(option) \(text): the radius is 0 to half the size (\(size / 2) pixels, or 50%)")
            }
            self = .roundRect(radius: f)
        }
    }

    public var description: String {
        switch self {
        case .circle: "circle"
        case .square: "square"
        case .roundRect(let r): "round-rect:\(Self.percent(r))%"
        }
    }

    static func percent(_ f: Double) -> String {
        let p = (f * 100 * 1000).rounded() / 1000
        return p == p.rounded() ? String(Int(p)) : String(p)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { self = try AvatarShape(parsing: text, size: 100) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(text) is not a shape"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
