import Foundation
import GpickAvatar
import GpickBase
import GpickTestSupport
import Testing

@Suite struct AvatarRenderTests {
    static func model(_ text: String = "", shape: AvatarShape = .circle, size: Int = 200, _ edit: (inout ProfileImage) -> Void = { _ in }) -> ProfileImage {
        var m = ProfileImage()
        m.text = text
        m.shape = shape
        m.size = size
        edit(&m)
        return m
    }

    @Test(arguments: [1, 37, 200, 501])
    func theOutputIsTheAskedSize(_ side: Int) async throws {
        let a = try await AvatarRenderer().render(Self.model("Ada Lovelace", size: side))
        #expect(a.size == side && a.rgba().count == side * side * 4)
        // And the PNG says so (its IHDR: width and height, big-endian, at bytes 16 and 20).
        let png = try a.encoded(as: .png)
        let w = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, h = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(w == side && h == side)
    }

    @Test func aGradientsTopAndBottomRowsHaveItsTwoColours() async throws {
        let top = AvatarColor(parsing: "#1e88e5")!, bottom = AvatarColor(parsing: "#ffca28")!
        let p = await Pixels.of(try await AvatarRenderer().render(Self.model(shape: .square) { $0.setGradient(top, bottom) }))
        for x in [0, 100, 199] {
            #expect(p.colour(x, 0) == top, "top row at \(x): \(p.colour(x, 0))")
            #expect(p.colour(x, 199) == bottom, "bottom row at \(x): \(p.colour(x, 199))")
        }
        // In between it goes from one to the other.
        let mid = p.at(100, 100)
        #expect(mid.r > 0x1e && mid.r < 0xff && mid.b < 0xe5 && mid.b > 0x28)
    }

    @Test func aCircleIsTransparentInTheCornersAndOpaqueInTheMiddle() async throws {
        let p = await Pixels.of(try await AvatarRenderer().render(Self.model("JD", size: 300) { $0.setColor(.black) }))
        for (x, y) in [(0, 0), (299, 0), (0, 299), (299, 299), (30, 30)] { #expect(p.at(x, y).a == 0, "(\(x), \(y))") }
        for (x, y) in [(150, 150), (150, 2), (2, 150), (297, 150), (60, 60)] { #expect(p.at(x, y).a == 255, "(\(x), \(y))") }
    }

    @Test(arguments: [0.1, 0.25, 0.5])
    func aRoundRectsCornerHasTheAskedRadius(_ fraction: Double) async throws {
        let side = 400
        let p = await Pixels.of(try await AvatarRenderer().render(Self.model(shape: .roundRect(radius: fraction), size: side) { $0.setColor(.white) }))
        let r = fraction * Double(side)
        // On the diagonal the arc is r(1 − 1/√2) in from the corner.
        let expected = r * (1 - 1 / 2.squareRoot())
        let firstOpaque = (0..<side).first { p.at($0, $0).a >= 128 }!
        #expect(abs(Double(firstOpaque) - expected) <= 1.5, "diagonal: \(firstOpaque), expected \(expected)")
        // The straight edges start where the arc ends: row 0 is opaque from x = r on, not before r − 2.
        let edge = (0..<side).first { p.at($0, 0).a >= 128 }!
        #expect(Double(edge) >= r - (r > 0 ? r.squareRoot() * 1.5 + 1 : 0) && Double(edge) <= r + 1, "top row opaque from \(edge), radius \(r)")
        #expect(p.at(side / 2, 1).a == 255 && p.at(1, side / 2).a == 255)
    }

    @Test func longTextStaysInsideTheInscribedSquare() async throws {
        let side = 400
        for shape in [AvatarShape.circle, .roundRect(radius: 0.3), .square] {
            let bg = AvatarColor(parsing: "#203040")!
            let p = await Pixels.of(try await AvatarRenderer().render(Self.model("Wolfeschlegelsteinhausenbergerdorff", shape: shape, size: side) { $0.setColor(bg) }))
            let box = try #require(await OffPool.run { p.inkBox(against: bg) })
            let inner: Double = switch shape {
            case .circle: Double(side) / 2.squareRoot()
            case .roundRect(let f): Double(side) - 2 * f * Double(side) * (1 - 1 / 2.squareRoot())
            case .square: Double(side)
            }
            let lo = (Double(side) - inner) / 2, hi = Double(side) - lo
            #expect(Double(box.x0) >= lo && Double(box.x1) <= hi && Double(box.y0) >= lo && Double(box.y1) <= hi, "\(shape): ink \(box), square \(lo)…\(hi)")
            // It is drawn, and large enough to read: wider than a third of the square.
            #expect(Double(box.x1 - box.x0) > inner / 3, "\(shape): ink \(box)")
        }
    }

    @Test func anEmojiIsDrawnInColour() async throws {
        let grey = AvatarColor(parsing: "#808080")!
        let p = await Pixels.of(try await AvatarRenderer().render(Self.model("🦊", size: 240) { $0.setColor(grey) }))
        let coloured = await OffPool.run {
            var n = 0
            for y in 0..<240 { for x in 0..<240 { let c = p.at(x, y); if c.a == 255 && max(c.r, c.g, c.b) - min(c.r, c.g, c.b) > 80 { n += 1 } } }
            return n
        }
        #expect(coloured > 2000, "coloured pixels: \(coloured)")
    }

    @Test func initialsInOtherScriptsAreDrawnWithRealGlyphs() async throws {
        // A missing glyph would be a hollow box: thin. Real CJK and Cyrillic glyphs fill more.
        for text in ["李小龙", "анна каренина", "αλέξης τσίπρας"] {
            let p = await Pixels.of(try await AvatarRenderer().render(Self.model(text, shape: .square, size: 200) { $0.setColor(.white); $0.textMode = .initials }))
            let (found, dark) = await OffPool.run { (p.inkBox(against: .white), p.mask(equalTo: .black).filter { $0 }.count) }
            let box = try #require(found, "\(text)")
            #expect(box.y1 - box.y0 > 40, "\(text): \(box)")
            #expect(dark > 300, "\(text): \(dark) glyph pixels")
        }
    }

    @Test func theSameModelGivesTheSameBytes() async throws {
        let m = Self.model("Ágnes Ó", shape: .roundRect(radius: 0.2), size: 256) { $0.setGradient(.black, .white) }
        for format in RenderedAvatar.Format.allCases {
            let a = try await AvatarRenderer().render(m).encoded(as: format)
            let b = try await AvatarRenderer().render(m).encoded(as: format)
            #expect(a == b, "\(format)")
        }
    }

    @Test func aGivenTextColourIsUsed() async throws {
        let red = AvatarColor(parsing: "#ff0000")!
        let a = try await AvatarRenderer().render(Self.model("AB", shape: .square) { $0.setColor(.white); $0.textColor = red })
        #expect(a.textColor == red)
        let inRed = await OffPool.run { Pixels(a).mask(equalTo: red).filter { $0 }.count }
        #expect(inRed > 300)
    }
}
