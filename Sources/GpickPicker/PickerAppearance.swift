import Foundation
import GpickBase

extension PickerConfiguration {
    /// How the picker's page looks (after Paparazzo's `Appearance` and the spacing of its
    /// `LayoutConfiguration`): a light or dark palette, an accent colour, the gaps, and a
    /// stylesheet of the user's own laid over gpick's. The terminal picker keeps the theme and
    /// accent for its own drawing.
    public struct Appearance: Sendable, Equatable {
        public enum Theme: String, Sendable, CaseIterable {
            /// Follows the system: the browser's `prefers-color-scheme`.
            case auto
            case light
            case dark
        }

        public var theme = Theme.auto
        /// The focus ring, the selection and the confirm button: a CSS hex colour, `#rgb` or
        /// `#rrggbb`. Text on it is black or white, whichever contrasts more.
        public var accent = Self.defaultAccent
        /// Pixels between cells.
        public var spacing = 4
        /// Pixels between the grid and the window's edges.
        public var insets = 6
        /// A stylesheet file applied after gpick's own. The page gets it from a fixed address
        /// and never names a file; it is read again for each page load, so edits show on reload.
        public var stylesheet: String?

        public init() {}

        public static let defaultAccent = "#2f6fd6"
        public static let spacingRange = 0...64
        public static let insetsRange = 0...128
        /// A stylesheet larger than this is not one written for the picker.
        public static let maxStylesheetBytes = 1 << 20

        public func validate() throws(GpickError) {
            guard Self.rgb(accent) != nil else {
                throw GpickError(.usage, "the accent colour must be a hex colour #rgb or #rrggbb, not \"\(accent)\"")
            }
            guard Self.spacingRange.contains(spacing) else {
                throw GpickError(.usage, "the spacing between cells must be \(Self.spacingRange.lowerBound)…\(Self.spacingRange.upperBound) pixels, not \(spacing)")
            }
            guard Self.insetsRange.contains(insets) else {
                throw GpickError(.usage, "the insets around the grid must be \(Self.insetsRange.lowerBound)…\(Self.insetsRange.upperBound) pixels, not \(insets)")
            }
            if let stylesheet { _ = try Self.read(stylesheet: stylesheet) }
        }

        /// `#rgb` or `#rrggbb` as 0…255 channels; nil for anything else (names, `rgb()`, alpha).
        public static func rgb(_ hex: String) -> (r: Int, g: Int, b: Int)? {
            guard hex.first == "#" else { return nil }
            let digits = Array(hex.dropFirst())
            guard digits.count == 3 || digits.count == 6, digits.allSatisfy(\.isHexDigit) else { return nil }
            let pairs = digits.count == 3 ? digits.map { String([$0, $0]) }
                                          : stride(from: 0, to: 6, by: 2).map { String(digits[$0...$0 + 1]) }
            let v = pairs.compactMap { Int($0, radix: 16) }
            return (v[0], v[1], v[2])
        }

        /// WCAG 2 relative luminance of an sRGB colour.
        static func luminance(_ c: (r: Int, g: Int, b: Int)) -> Double {
            func linear(_ v: Int) -> Double {
                let s = Double(v) / 255
                return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b)
        }

        /// Black or white, whichever has the higher WCAG 2 contrast on the accent (either
        /// reaches at least 4.58:1 on any colour).
        public var textOnAccent: String {
            let l = Self.luminance(Self.rgb(accent) ?? (0, 0, 0))
            return (1.05 / (l + 0.05)) >= ((l + 0.05) / 0.05) ? "#ffffff" : "#000000"
        }

        /// The page's custom properties for these choices (picker.css reads them).
        var css: String {
            let accent = Self.rgb(accent).map { String(format: "#%02x%02x%02x", $0.r, $0.g, $0.b) } ?? Self.defaultAccent
            return ":root { --accent: \(accent); --on-accent: \(textOnAccent); --spacing: \(spacing)px; --insets: \(insets)px; }\n"
        }

        /// The stylesheet's bytes, or why they cannot be had, in the file's terms.
        static func read(stylesheet path: String) throws(GpickError) -> [UInt8] {
            var folder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &folder) else {
                throw GpickError(.input, "no such stylesheet: \(path)")
            }
            guard !folder.boolValue else { throw GpickError(.input, "the stylesheet \(path) is a folder, not a file") }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw GpickError(.input, "cannot read the stylesheet \(path): permission denied")
            }
            guard data.count <= maxStylesheetBytes else {
                throw GpickError(.input, "the stylesheet \(path) is \(data.count) bytes: at most \(maxStylesheetBytes) are read")
            }
            return [UInt8](data)
        }
    }
}
