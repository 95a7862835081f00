import Foundation
import GpickWeb

/// What the picker's page and its calls exchange, typed: the state its event stream and
/// `/api/state` carry, the bodies of its calls, their replies, and an item's cell. Keys are the
/// ones `picker.js` reads.
enum PickerPageJSON {
    /// The page's configuration, in its `config` script element (read by picker.js as it loads).
    struct Settings: Encodable {
        var columns: Int
        var scroll: String
        var multi: Bool
        /// Take-or-pick's question: the actions offered.
        var actions: [String]
        var camera: Bool
        /// The grid has a camera cell whenever its camera runs: `auto` may find none at first,
        /// and one plugged in later gets its cell then.
        var cameraMayAppear: Bool
        var cameraMode: String
        var stage: String
        var preloadedRows: Int
        var thumbnailSizes: [Int]
        var cameraWidth: Int
        var cameraHeight: Int
        /// Cells in the listing, and how many of them are the library's.
        var total: Int
        var assets: Int
        /// The first screenful's thumbnails, asked for by the page's head.
        var preload: String?
    }

    /// The page's view of the picker (`/api/state`, and each `state` event).
    struct State: Encodable {
        var camera: Camera
        var problems: [String]
        var notice: String
        var version: Int
        var ended: Bool
        /// Cells in the grid: the library's assets and this picker's captures.
        var count: Int
        var assets: Int
        var stage: String
        /// The newest capture made in the picker, if any.
        var capture: Cell?
    }

    struct Camera: Encodable {
        var state: String
        var position: String
        var live: Bool
        var recording: Bool
        var reason: String?
    }

    /// What a call's JSON body may say: {"ids": [...]}, {"name": "..."}, {"on": true}. A body that
    /// is not such an object says nothing (each call then says what it lacks).
    struct CallBody: Decodable, Sendable {
        var ids: [String] = []
        var name: String?
        var on: Bool?

        init() {}

        init(_ bytes: [UInt8]) {
            self = (try? JSONDecoder().decode(CallBody.self, from: Data(bytes))) ?? CallBody()
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            ids = try c.decodeIfPresent([String].self, forKey: .ids) ?? []
            name = try c.decodeIfPresent(String.self, forKey: .name)
            on = try c.decodeIfPresent(Bool.self, forKey: .on)
        }

        enum CodingKeys: String, CodingKey { case ids, name, on }
    }

    /// A call's answer: only the fields it sets are written.
    struct Reply: Encodable, Sendable {
        var ok: Bool?
        var count: Int?
        var stage: String?
        var position: String?
        var live: Bool?
        var recording: Bool?
        /// The cell of the item a capture made.
        var item: Cell?

        static let done = Reply(ok: true)
    }

    /// An item as the page gets it: no path (it names items by id), the badges to draw.
    struct Cell: Codable, Sendable, Equatable {
        var id: String
        var kind: String
        var badges: [String]
        var name: String
        var width: Int?
        var height: Int?
        var taken: Int64?

        /// The same JSON as `JSONEncoder` writes (no key sorting asked), written directly: the
        /// page gets a thousand at once.
        var json: String {
            var out = "{\"id\":" + PickerItem.quoted(id) + ",\"kind\":" + PickerItem.quoted(kind)
            out += ",\"badges\":[" + badges.map(PickerItem.quoted).joined(separator: ",") + "]"
            out += ",\"name\":" + PickerItem.quoted(name)
            if let width { out += ",\"width\":\(width)" }
            if let height { out += ",\"height\":\(height)" }
            if let taken { out += ",\"taken\":\(taken)" }
            return out + "}"
        }
    }
}
