import Foundation
@testable import GpickAvatar
import GpickBase
import GpickImages
import GpickTestSupport
import Testing

/// The halo laid under text that neither black nor white reads on: it follows the glyphs (no
/// rectangle, no straight edge) and fades without steps (at most 3 levels of alpha between
/// neighbouring pixels), on a white-to-black gradient and on busy photos, at the default size.
@Suite struct AvatarHaloTests {
    static let side = 500

    /// What is wrong with the halo of `avatar`, none when it is smooth and follows the text.
    /// Each check is one pass over buffer pointers: 500×500 pixels, forty avatars a run, in a
    /// debug build (closures and array indexing made this the suite's largest CPU cost).
    static func problems(_ avatar: RenderedAvatar, _ what: String) -> [String] {
        guard let alpha = avatar.scrimAlpha, let text = avatar.textColor else { return [] }
        let n = avatar.size
        let pixels = Pixels(avatar)
        let top = alpha.max() ?? 0
        // Full strength only near the glyphs: within `near` (15 px at 500) of their ink, and as
        // far beyond as the smoothstep (150 px) stays within half a level of the top once rounded
        // (3t² ≤ 0.5/top), plus the glyphs' anti-aliased edges and the chamfer distance's error.
        // The glyphs: pixels within 64 levels of the text's colour (thin strokes have no pixel
        // of exactly it, only anti-aliased ones).
        let glyphs = pixels.mask { r, g, b, _ in
            abs(r - Int(text.red)) <= 64 && abs(g - Int(text.green)) <= 64 && abs(b - Int(text.blue)) <= 64
        }
        let plateau = Int((150 * (1 / (6 * Double(max(1, top)))).squareRoot()).rounded(.up))
        let near = pixels.dilated(glyphs, by: 15 + plateau + 4 + 2)
        var step = 0, strayFull = 0
        var stray = (x0: n, y0: n, x1: -1, y1: -1), full = (x0: n, y0: n, x1: -1, y1: -1)
        alpha.withUnsafeBufferPointer { a in
            near.withUnsafeBufferPointer { near in
                for y in 0..<n {
                    for x in 0..<n {
                        let i = y * n + x, v = Int(a[i])
                        if x + 1 < n { step = max(step, abs(v - Int(a[i + 1]))) }
                        if y + 1 < n { step = max(step, abs(v - Int(a[i + n]))) }
                        guard a[i] == top else { continue }
                        full = (min(full.x0, x), min(full.y0, y), max(full.x1, x), max(full.y1, y))
                        if !near[i] {
                            strayFull += 1
                            stray = (min(stray.x0, x), min(stray.y0, y), max(stray.x1, x), max(stray.y1, y))
                        }
                    }
                }
            }
        }
        var out: [String] = []
        if step > 3 { out.append("\(what): a step of \(step)/255 between neighbouring pixels") }
        if strayFull > 0 {
            out.append("\(what): \(strayFull) pixels at full strength away from the glyphs (top \(top), x \(stray.x0)…\(stray.x1), y \(stray.y0)…\(stray.y1))")
        }
        // Not a rectangle: somewhere in the box of full strength, the halo is weaker (between words,
        // above short letters, at the corners).
        if full.x1 >= 0 {
            var weaker = 0
            alpha.withUnsafeBufferPointer { a in
                for y in full.y0...full.y1 { for x in full.x0...full.x1 where a[y * n + x] < top { weaker += 1 } }
            }
            if weaker < (full.x1 - full.x0 + 1) * (full.y1 - full.y0 + 1) / 20 { out.append("\(what): the halo fills its box (\(weaker) weaker pixels)") }
        }
        return out
    }

    @Test func aWhiteToBlackGradientUnderChineseText() async throws {
        var m = ProfileImage()
        m.text = "李小龙"
        m.size = Self.side
        m.setGradient(AvatarColor(red: 255, green: 255, blue: 255), AvatarColor(red: 0, green: 0, blue: 0))
        let avatar = try await AvatarRenderer().render(m)
        #expect(avatar.scrimAlpha != nil, "a gradient from white to black needs a halo")
        let found = await OffPool.run { Self.problems(avatar, "gradient") }
        #expect(found == [], "\(found)")
    }

    @Test func twentyBusyPhotos() async throws {
        let thumbnails = ThumbnailCache(base: TestEnvironment.tempDir("avatar-thumbs"), version: "test")
        var haloes = 0
        for path in try await AvatarContrastTests.photos.value() {
            let picture = try await AvatarPicture.covering(Self.side, from: FileImageSource(path: path, thumbnails: thumbnails))
            for text in ["Ada Lovelace", "Wu"] {
                var m = ProfileImage()
                m.text = text
                m.size = Self.side
                m.setImage(ImageReference(path: path))
                let avatar = try await AvatarRenderer().render(m, picture: picture)
                if avatar.scrimAlpha != nil { haloes += 1 }
                let found = await Subprocess.inBackground { Self.problems(avatar, "\(path) with \(text)") }
                #expect(found == [], "\(found)")
            }
        }
        #expect(haloes >= 5, "only \(haloes) of 20 renders needed a halo: the check checked little")
    }
}
