import FoundationEssentials
import GpickBase

/// A tiny tolerant XMP reader: no XML library, just what the scanner needs. Properties are found
/// by namespace URI, whatever prefix the file binds it to (`GCamera:` and `Camera:` are both
/// seen), written either as attributes (`GCamera:MotionPhoto="1"`, as phones write) or as
/// elements (`<GCamera:MotionPhoto>1</GCamera:MotionPhoto>`, as exiftool writes).
struct XMPScanner {
    static let camera = "http://ns.google.com/photos/1.0/camera/"
    static let container = "http://ns.google.com/photos/1.0/container/"
    static let item = "http://ns.google.com/photos/1.0/container/item/"
    static let panorama = "http://ns.google.com/photos/1.0/panorama/"
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let maxBytes = 256 * 1024

    let text: [UInt8]
    /// URI → the prefixes bound to it.
    private(set) var prefixes: [String: [[UInt8]]] = [:]

    init(_ bytes: some Collection<UInt8>) {
        text = Array(bytes.prefix(Self.maxBytes))
        var i = 0, bindings = 0
        let xmlns = Array("xmlns:".utf8)
        while bindings < 256, let at = text.firstIndex(of: xmlns, from: i) {
            i = at + xmlns.count
            guard let eq = text[i...].prefix(64).firstIndex(of: 0x3D) else { continue }  // '='
            let prefix = Array(text[i..<eq])
            var q = eq + 1
            while q < text.count, text[q] == 0x20 { q += 1 }
            guard q < text.count, text[q] == 0x22 || text[q] == 0x27,
                  let end = text[(q + 1)...].prefix(512).firstIndex(of: text[q]) else { continue }
            let uri = String(decoding: text[(q + 1)..<end], as: UTF8.self)
            // A URI has a prefix or two in real packets; a few at most are looked up.
            if let known = prefixes[uri], known.contains(prefix) || known.count >= 4 { i = end; continue }
            prefixes[uri, default: []].append(prefix)
            bindings += 1
            i = end
        }
    }

    var mentionsGoogle: Bool { prefixes.keys.contains { $0.hasPrefix("http://ns.google.com/photos/") } }

    /// A simple property's value (first found), as an attribute or an element, within `range`.
    func value(_ ns: String, _ name: String, in range: Range<Int>? = nil) -> String? {
        let r = range ?? 0..<text.count
        for p in prefixes[ns] ?? [] {
            let qualified = p + [0x3A] + Array(name.utf8)
            if let v = attribute(qualified, in: r) ?? element(qualified, in: r) { return v }
        }
        return nil
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    private func attribute(_ qualified: [UInt8], in r: Range<Int>) -> String? {
        var i = r.lowerBound
        while let at = text[r].firstIndex(of: qualified, from: i) {
            i = at + qualified.count
            guard at > 0, Self.isSpace(text[at - 1]) else { continue }
            var k = i
            while k < r.upperBound, Self.isSpace(text[k]) { k += 1 }
            guard k < r.upperBound, text[k] == 0x3D else { continue }  // '='
            k += 1
            while k < r.upperBound, Self.isSpace(text[k]) { k += 1 }
            guard k < r.upperBound, text[k] == 0x22 || text[k] == 0x27,
                  let end = text[(k + 1)..<r.upperBound].firstIndex(of: text[k]) else { continue }
            return Self.decode(text[(k + 1)..<end])
        }
        return nil
    }

    private func element(_ qualified: [UInt8], in r: Range<Int>) -> String? {
        let open = [0x3C] + qualified  // "<prefix:Name"
        var i = r.lowerBound
        while let at = text[r].firstIndex(of: open, from: i) {
            i = at + open.count
            guard i < r.upperBound, text[i] == 0x3E || Self.isSpace(text[i]) else { continue }  // not "<p:NameLonger"
            guard let close = text[i..<r.upperBound].firstIndex(of: 0x3E), text[close - 1] != 0x2F else { continue }  // "/>": empty
            let start = close + 1
            guard let end = text[start..<r.upperBound].firstIndex(of: 0x3C) else { return nil }
            return Self.decode(text[start..<end])
        }
        return nil
    }

    /// The few entities XMP writers use; values here are numbers, MIME types and words.
    static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        var s = String(decoding: bytes, as: UTF8.self).trimmed()
        if s.contains("&") {
            for (entity, char) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
                s = s.replacing(entity, with: char)
            }
        }
        return s.isEmpty ? nil : s
    }

    /// Container:Directory's items, in order: each one's Item: fields (Semantic, Mime, Length,
    /// Padding), whether written as attributes of `Container:Item` or as its child elements.
    func directoryItems() -> [[String: String]] {
        var out: [[String: String]] = []
        for cp in prefixes[Self.container] ?? [] {
            let open = [0x3C] + cp + Array(":Directory".utf8), close = Array("</".utf8) + cp + Array(":Directory".utf8)
            guard let start = text.firstIndex(of: open) else { continue }
            let end = text.firstIndex(of: close, from: start) ?? text.count
            // One rdf:li per item; without any, the whole directory is read as one item.
            var starts: [Int] = []
            for rp in prefixes[Self.rdf] ?? [] {
                let li = [0x3C] + rp + Array(":li".utf8)
                var i = start
                while starts.count < 64, let at = text[start..<end].firstIndex(of: li, from: i) {
                    starts.append(at)
                    i = at + li.count
                }
            }
            starts.sort()
            if starts.isEmpty { starts = [start] }
            for (k, s) in starts.enumerated() {
                let range = s..<(k + 1 < starts.count ? starts[k + 1] : end)
                var fields: [String: String] = [:]
                for name in ["Semantic", "Mime", "Length", "Padding"] {
                    fields[name] = value(Self.item, name, in: range)
                }
                if !fields.isEmpty { out.append(fields) }
            }
            if !out.isEmpty { break }
        }
        return out
    }
}

/// What the scanner keeps of an XMP packet.
struct XMPFacts: Equatable {
    var motionPhoto: Bool = false
    var microVideo: Bool = false
    var microVideoOffset: Int?
    var presentationUs: Int64?
    /// The MotionPhoto item's Length and Padding; `hasVideoItem` false when the directory has none.
    var hasVideoItem = false
    var itemLength: Int?
    var itemPadding: Int?
    var isPanorama = false
    /// Container:Directory's items in order (Primary first): Motion Photos, Ultra HDR gain maps.
    var directory: [(semantic: String, mime: String?, length: Int?, padding: Int?)] = []

    static func == (a: XMPFacts, b: XMPFacts) -> Bool {
        a.motionPhoto == b.motionPhoto && a.microVideo == b.microVideo && a.microVideoOffset == b.microVideoOffset
            && a.presentationUs == b.presentationUs && a.hasVideoItem == b.hasVideoItem && a.itemLength == b.itemLength
            && a.itemPadding == b.itemPadding && a.isPanorama == b.isPanorama
            && a.directory.map(\.semantic) == b.directory.map(\.semantic) && a.directory.map(\.mime) == b.directory.map(\.mime)
            && a.directory.map(\.length) == b.directory.map(\.length) && a.directory.map(\.padding) == b.directory.map(\.padding)
    }

    init() {}

    init(_ bytes: some Collection<UInt8>) {
        let x = XMPScanner(bytes)
        guard x.mentionsGoogle else { return }
        func flag(_ ns: String, _ name: String) -> Bool { x.value(ns, name).flatMap { Int($0) } == 1 }
        motionPhoto = flag(XMPScanner.camera, "MotionPhoto")
        microVideo = flag(XMPScanner.camera, "MicroVideo")
        microVideoOffset = x.value(XMPScanner.camera, "MicroVideoOffset").flatMap { Int($0) }
        let pts = x.value(XMPScanner.camera, "MotionPhotoPresentationTimestampUs").flatMap { Int64($0) }
            ?? x.value(XMPScanner.camera, "MicroVideoPresentationTimestampUs").flatMap { Int64($0) }
        presentationUs = pts.flatMap { $0 >= 0 ? $0 : nil }  // −1 = unknown
        let items = x.directoryItems()
        directory = items.compactMap { i in
            i["Semantic"].map { ($0, i["Mime"], i["Length"].flatMap { Int($0) }, i["Padding"].flatMap { Int($0) }) }
        }
        if motionPhoto || microVideo,
           let video = items.first(where: { $0["Semantic"]?.lowercased() == "motionphoto" }) {
            hasVideoItem = true
            itemLength = video["Length"].flatMap { Int($0) }
            itemPadding = video["Padding"].flatMap { Int($0) }
        }
        let projection = x.value(XMPScanner.panorama, "ProjectionType")?.lowercased()
        isPanorama = projection == "equirectangular" || projection == "cylindrical"
            || x.value(XMPScanner.panorama, "UsePanoramaViewer")?.lowercased() == "true"
    }
}
