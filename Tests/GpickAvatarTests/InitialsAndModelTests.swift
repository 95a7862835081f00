import CGLib
import Foundation
import GpickAvatar
import Testing

@Suite struct InitialsAndModelTests {
    @Test(arguments: [
        ("Ágnes Ó", TextMode.automatic, "ÁÓ"),
        // Decomposed input (A + combining acute) is normalised to NFC: one character each.
        ("A\u{301}gnes O\u{301}", .automatic, "ÁÓ"),
        ("ada lovelace", .automatic, "AL"),
        ("  Jean-Luc   Picard  ", .automatic, "JP"),
        ("αλέξης τσίπρας", .automatic, "ΑΤ"),
        ("анна каренина", .automatic, "АК"),
        ("李小龙", .initials, "李"),
        ("李 小龙", .automatic, "李小"),
        ("金 민수", .automatic, "金민"),
        ("ßarah ölz", .automatic, "ßÖ"),
        ("JD", .automatic, "JD"),
        ("李小龙", .automatic, "李小龙"),
        ("Ada Lovelace", .literal, "Ada Lovelace"),
        ("👨‍👩‍👧 family", .automatic, "👨‍👩‍👧F"),
        ("🦊", .automatic, "🦊"),
    ])
    func initials(_ text: String, _ mode: TextMode, _ expected: String) {
        #expect(Initials.shown(text, mode: mode) == expected)
    }

    @Test func paletteIsPickedByGLibsStringHash() {
        for text in ["", "a", "Ada Lovelace", "Ágnes Ó", "李小龙", "🦊 fox"] {
            let glib = text.withCString { g_str_hash($0) }
            #expect(AvatarPalette.hash(text) == glib, "\(text)")
        }
        #expect(AvatarPalette.gradient(for: "Ada Lovelace") == AvatarPalette.gradient(for: "Ada Lovelace"))
        // Different names spread over the palette.
        let picked = Set(["Ada", "Bob", "Cleo", "Dora", "Emil", "Fay", "Gus", "Hana", "Ivo", "Jun"].map { AvatarPalette.gradient(for: $0).top })
        #expect(picked.count >= 5)
    }

    @Test func coloursParseAndPrint() throws {
        #expect(AvatarColor(parsing: "#abc") == AvatarColor(red: 0xaa, green: 0xbb, blue: 0xcc))
        #expect(AvatarColor(parsing: "#11223380")?.alpha == 0x80)
        #expect(AvatarColor(parsing: "rgb(1, 2, 3)") == AvatarColor(red: 1, green: 2, blue: 3))
        #expect(AvatarColor(parsing: "rgba(1,2,3,0)")?.isTransparent == true)
        #expect(AvatarColor(parsing: "Teal") == AvatarColor(red: 0, green: 128, blue: 128))
        for bad in ["", "#12", "#ggg", "rgb(1,2)", "rgb(1,2,300)", "blurple", "rgba(1,2,3,2)"] {
            #expect(AvatarColor(parsing: bad) == nil, "\(bad)")
        }
        #expect(AvatarColor(red: 1, green: 2, blue: 255).description == "#0102ff")
        // WCAG's own figures: black on white is 21:1; #777 on white is about 4.48:1.
        #expect(abs(Contrast.ratio(.black, .white) - 21) < 1e-9)
        #expect(abs(Contrast.ratio(AvatarColor(parsing: "#777777")!, .white) - 4.48) < 0.01)
    }

    @Test func equalOrTransparentGradientIsStoredAsAColour() {
        var m = ProfileImage()
        m.setGradient(.white, .white)
        #expect(m.background == .color && m.colors == [.white])
        m.setGradient(AvatarColor(parsing: "#336699")!, .transparent)
        #expect(m.background == .color && m.colors == [AvatarColor(parsing: "#336699")!])
        m.setGradient(.black, .white)
        #expect(m.background == .gradient && m.colors == [.black, .white])
        #expect(m.lastColors.prefix(3) == [.black, .white, AvatarColor(parsing: "#336699")!])
    }

    @Test func theModelRoundTrips() throws {
        var m = ProfileImage()
        m.text = "Ágnes Ó"
        m.textMode = .initials
        m.setGradient(AvatarColor(parsing: "#ff000080")!, .black)
        m.setImage(ImageReference(asset: 42, path: "/p/a b.jpg", sha256: String(repeating: "ab", count: 32), focus: FocusPoint(x: 0.25, y: 1)))
        m.setColor(.white)  // the image is kept, to come back to
        m.textColor = AvatarColor(parsing: "#123456")
        m.shape = .roundRect(radius: 0.125)
        m.size = 321
        m.matte = .black
        let json = m.json()
        let back = try ProfileImage.decode(json, path: "m.json")
        #expect(back == m)
        #expect(back.json() == json)
        #expect(back.image?.asset == 42 && back.image?.focus == FocusPoint(x: 0.25, y: 1))
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("\"round-rect:12.5%\"") && text.contains("\"background\" : \"color\""), "\(text)")
    }

    @Test(arguments: [
        ("{", "not valid JSON"),
        ("{\"size\": 0}", "size 0 is out of range"),
        ("{\"background\": \"gradient\", \"colors\": [\"#fff\"]}", "needs two colours"),
        ("{\"colors\": [\"nope\"]}", "not a colour"),
        ("{\"shape\": \"hexagon\"}", "not a shape"),
        ("{\"background\": \"image\"}", "needs an \"image\""),
    ])
    func badModelsSayWhy(_ json: String, _ why: String) {
        #expect {
            _ = try ProfileImage.decode(Array(json.utf8), path: "m.json")
        } throws: { error in
            let message = "\(error)"
            return message.contains("m.json") && message.contains(why)
        }
    }
}
