import Foundation
import GpickAvatar
import GpickBase
import GpickImages
import GpickTestSupport
import Testing

/// The automatic text colour, measured on the pixels drawn: between the glyphs and the
/// background right around them, WCAG contrast is at least 4.5:1, over solid colours, gradients
/// and busy photos (written by ffmpeg).
///
/// Backgrounds avoid pure black and white (channels 1–254) so that a glyph's inside, drawn in
/// exactly black or white, is told from the background by colour alone.
@Suite struct AvatarContrastTests {
    static let side = 200

    static func randomColour(_ rng: inout SeededRandom) -> AvatarColor {
        AvatarColor(red: .random(in: 1...254, using: &rng), green: .random(in: 1...254, using: &rng), blue: .random(in: 1...254, using: &rng))
    }

    /// Renders `model` with its text and without, and measures the text's contrast.
    static func check(_ model: ProfileImage, picture: AvatarPicture? = nil, _ what: String) async throws {
        let avatar = try await AvatarRenderer().render(model, picture: picture)
        var bare = model
        bare.text = ""
        let plain = try await AvatarRenderer().render(bare, picture: picture)
        guard let text = avatar.textColor else {
            Issue.record("\(what): no text drawn")
            return
        }
        let m = await OffPool.run { Pixels(avatar).textContrast(text, plain: Pixels(plain)) }
        #expect(m.glyphPixels > 400 && m.ringPixels > 400, "\(what): \(m.glyphPixels) glyph and \(m.ringPixels) ring pixels")
        #expect(m.worst >= Contrast.minimum, "\(what): \(text) text, worst contrast \(m.worst)")
    }

    @Test func fiftyRandomSolidColours() async throws {
        var rng = SeededRandom(state: 17)
        let names = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov"]
        for i in 0..<50 {
            let c = Self.randomColour(&rng)
            var m = ProfileImage()
            m.text = names[i % names.count]
            m.size = Self.side
            m.shape = .square
            m.setColor(c)
            try await Self.check(m, "colour \(c)")
        }
    }

    @Test func fiftyRandomGradients() async throws {
        var rng = SeededRandom(state: 29)
        for i in 0..<50 {
            var top = Self.randomColour(&rng), bottom = Self.randomColour(&rng)
            // A few from near-black to near-white, the hardest: no single colour reads on both ends.
            if i % 10 == 0 { (top, bottom) = (AvatarColor(red: 2, green: 2, blue: 2), AvatarColor(red: 253, green: 253, blue: 253)) }
            var m = ProfileImage()
            m.text = "Mo Zed"
            m.size = Self.side
            m.shape = .square
            m.setGradient(top, bottom)
            try await Self.check(m, "gradient \(top)→\(bottom)")
        }
    }

    /// Ten busy pictures ffmpeg draws: fractals, cellular automata, noise, colour bars.
    static let photos = SharedFixture {
        let dir = TestEnvironment.tempDir("avatar-photos")
        let sources = [
            "mandelbrot=s=640x480", "cellauto=s=640x480:rule=30", "life=s=640x480:mold=10:ratio=0.5", "sierpinski=s=640x480",
            "testsrc2=s=640x480", "smptehdbars=s=640x480", "rgbtestsrc=s=640x480", "colorspectrum=s=640x480",
            "color=c=gray:s=640x480,noise=alls=100:allf=u", "gradients=s=640x480:c0=white:c1=black:c2=red:nb_colors=3:seed=17",
        ]
        // Channels kept to 1–254 (see the suite's note), still busy. The gradient's seed is fixed
        // (ffmpeg draws a new one each run by default; a test must see the same photo each time),
        // and chosen: under "Ada Lovelace", the colour's wider region falls short of the target
        // while the text's own neighbourhood needs no halo at all, which once made an empty one.
        let clamp = "format=rgb24,lutrgb=r='clip(val,1,254)':g='clip(val,1,254)':b='clip(val,1,254)'"
        try MediaFixtures.runAll(sources.enumerated().map { i, s in
            ("/usr/bin/ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", s, "-frames:v", "1", "-vf", clamp, "\(dir)/photo\(i).png"])
        })
        return (0..<sources.count).map { "\(dir)/photo\($0).png" }
    }

    @Test func tenBusyPhotos() async throws {
        let thumbnails = ThumbnailCache(base: TestEnvironment.tempDir("avatar-thumbs"), version: "test")
        for (i, path) in try await Self.photos.value().enumerated() {
            let picture = try await AvatarPicture.covering(Self.side, from: FileImageSource(path: path, thumbnails: thumbnails))
            for text in ["Ada Lovelace", "Wu"] {
                var m = ProfileImage()
                m.text = text
                m.size = Self.side
                m.shape = i % 2 == 0 ? .circle : .square
                m.setImage(ImageReference(path: path))
                try await Self.check(m, picture: picture, "\(path) with \(text)")
            }
        }
    }

    @Test func aBusyPhotoGetsAScrimOnlyUnderTheText() async throws {
        let path = try await Self.photos.value()[1]  // cellauto: black and white cells everywhere
        let thumbnails = ThumbnailCache(base: TestEnvironment.tempDir("avatar-thumbs"), version: "test")
        let picture = try await AvatarPicture.covering(Self.side, from: FileImageSource(path: path, thumbnails: thumbnails))
        var m = ProfileImage()
        m.text = "Ada Lovelace"
        m.size = Self.side
        m.shape = .square
        m.setImage(ImageReference(path: path))
        let withText = await Pixels.of(try await AvatarRenderer().render(m, picture: picture))
        m.text = ""
        let plain = await Pixels.of(try await AvatarRenderer().render(m, picture: picture))
        // The corners are the photo untouched; the middle is changed (the scrim and the text).
        #expect(withText.at(2, 2) == plain.at(2, 2) && withText.at(197, 197) == plain.at(197, 197))
        var changed = 0
        for y in 90..<110 { for x in 40..<160 where withText.at(x, y) != plain.at(x, y) { changed += 1 } }
        #expect(changed > 1000)
    }
}
