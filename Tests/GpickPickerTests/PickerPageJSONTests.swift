import Foundation
import GpickLibrary
import GpickWeb
@testable import GpickPicker
import Testing

/// The JSON the picker's page and calls exchange: the cells written by hand for speed are what
/// the typed `Cell` encodes, and a call's body is read leniently.
@Suite struct PickerPageJSONTests {
    static func item(_ name: String, width: Int?, height: Int?, kind: Asset.Kind = .photo, duration: Double? = nil,
                     subtypes: [String] = []) -> PickerItem {
        PickerItem(capture: 3, path: "/lib/2024/" + name, kind: kind, mimeType: kind == .video ? "video/mp4" : "image/jpeg", size: 10,
                   width: width, height: height, duration: duration, subtypes: subtypes, pairedMovie: nil)
    }

    @Test(arguments: [
        item("a.jpg", width: 4032, height: 3024, subtypes: ["live"]),
        item("quote\"back\\slash\u{1}\u{2028}é.jpg", width: nil, height: nil),
        item("clip.mp4", width: 1920, height: nil, kind: .video, duration: 63.5),
    ])
    func theHandWrittenCellIsTheEncodedOne(_ item: PickerItem) throws {
        let cell = item.cell
        let written = Data(item.cellJSON.utf8)
        // What the page reads back is the cell itself, through both writers.
        #expect(try JSONDecoder().decode(PickerPageJSON.Cell.self, from: written) == cell)
        let encoded = try JSONEncoder().encode(cell)
        let a = try JSONSerialization.jsonObject(with: written) as? NSDictionary
        let b = try JSONSerialization.jsonObject(with: encoded) as? NSDictionary
        #expect(a != nil && a == b, "\(item.cellJSON) vs \(String(decoding: encoded, as: UTF8.self))")
        // Width and height come together or not at all.
        #expect((cell.width == nil) == (cell.height == nil))
    }

    @Test func aCallBodyIsReadLeniently() {
        let full = PickerPageJSON.CallBody(Array(#"{"ids":["a1","c2"],"name":"Take photo","on":false}"#.utf8))
        #expect(full.ids == ["a1", "c2"] && full.name == "Take photo" && full.on == false)
        let partial = PickerPageJSON.CallBody(Array(#"{"on":true}"#.utf8))
        #expect(partial.ids.isEmpty && partial.name == nil && partial.on == true)
        for junk in ["", "[]", "not json", #"{"ids":"a1"}"#] {
            let body = PickerPageJSON.CallBody(Array(junk.utf8))
            #expect(body.ids.isEmpty && body.name == nil && body.on == nil, "\(junk)")
        }
    }

    @Test func aReplyWritesOnlyWhatItSets() {
        #expect(String(decoding: WebJSON.bytes(PickerPageJSON.Reply.done), as: UTF8.self) == #"{"ok":true}"#)
        #expect(String(decoding: WebJSON.bytes(PickerPageJSON.Reply(ok: true, count: 2)), as: UTF8.self) == #"{"count":2,"ok":true}"#)
    }
}
