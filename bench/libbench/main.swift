// gpick-libbench: the media library's in-process benchmark (bench/run.sh, section "library", L3).
//
//   gpick-libbench fill INDEX COUNT          a new index of COUNT synthetic assets, one transaction
//   gpick-libbench list INDEX [--runs N] [--warmup N] [--limit N]
//                                            times LibraryIndex.list, newest first, as `gpick library
//                                            list` and the picker ask for it; one JSON object on stdout
//
// The rows are made with SQL straight into the index's schema (Asset has no public initialiser),
// deterministically (a fixed seed): a phone-like mix of photos, videos, Apple pairs (with their
// companion movies, which are rows but not listed), Motion Photos, bursts, screenshots,
// panoramas and a few unreadable files, added over five years in scan order, not time order.
import Foundation
import GRDB
import GpickLibrary

let root = "/gpick-libbench/Pictures"

struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("gpick-libbench: \(message)\n".utf8))
    exit(1)
}

func fill(index path: String, count: Int) throws {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    _ = try LibraryIndex.open(path: path)  // creates the folder and the schema, as gpick does
    let queue = try DatabaseQueue(path: path)
    let columns = ["path", "root", "device", "inode", "size", "mtimeNs", "kind", "mimeType", "width", "height",
                   "orientation", "duration", "takenAt", "addedAt", "live", "burst", "panorama", "screenshot",
                   "contentIdentifier", "pairedMovie", "companionOf", "motionKind", "motionVideoOffset",
                   "motionVideoLength", "burstKey", "burstLead", "unreadable"]
    let sql = "INSERT INTO asset (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
    var rng = SplitMix64(state: 15)
    let start: Int64 = 1_577_836_800  // 2020-01-01
    let span: Int64 = 5 * 365 * 86_400
    try queue.write { db in
        let insert = try db.makeStatement(sql: sql)
        var made = 0
        var n = 0
        func add(_ values: [(any DatabaseValueConvertible)?]) throws -> Int64 {
            try insert.execute(arguments: StatementArguments(values))
            made += 1
            return db.lastInsertedRowID
        }
        while made < count {
            n += 1
            let added = start + Int64(rng.below(Int(span)))
            let taken = added - Int64(rng.below(86_400 * 30))
            var t = time_t(taken)
            var parts = tm()
            gmtime_r(&t, &parts)
            let month = Int(parts.tm_mon) + 1
            let folder = "\(root)/\(Int(parts.tm_year) + 1900)/\(month < 10 ? "0" : "")\(month)"
            let mtime = taken * 1_000_000_000
            let size = Int64(1_500_000 + rng.below(4_000_000))
            let roll = rng.below(1000)
            let portrait = rng.chance(0.3)
            let (w, h) = portrait ? (3024, 4032) : (4032, 3024)
            func photo(_ name: String, live: Bool = false, burst: Bool = false, lead: Bool = false, burstKey: String? = nil,
                       identifier: String? = nil, paired: String? = nil, motion: Bool = false, screenshot: Bool = false,
                       panorama: Bool = false, unreadable: String? = nil) throws -> Int64 {
                try add(["\(folder)/\(name)", root, 2049, Int64(n) * 4 + 1, size, mtime, "photo", "image/jpeg",
                         unreadable == nil ? (panorama ? 12000 : w) : nil, unreadable == nil ? (panorama ? 3000 : h) : nil,
                         unreadable == nil ? 1 : nil, nil, taken, added, live, burst, panorama, screenshot, identifier, paired,
                         nil, motion ? "google" : nil, motion ? size - 2_000_000 : nil, motion ? 2_000_000 : nil, burstKey, lead,
                         unreadable])
            }
            switch roll {
            case 0..<70:  // a video
                _ = try add(["\(folder)/VID_\(n).mp4", root, 2049, Int64(n) * 4 + 1, size * 10, mtime, "video", "video/mp4",
                             1920, 1080, 1, Double(5 + rng.below(120)), taken, added, false, false, false, false, nil, nil, nil,
                             nil, nil, nil, nil, false, nil])
            case 70..<90 where count - made >= 2:  // an Apple live pair: the photo, then its movie as a companion row
                let uuid = String(rng.next(), radix: 16, uppercase: true) + "-" + String(rng.next(), radix: 16, uppercase: true)
                let movie = "\(folder)/IMG_\(n).MOV"
                let id = try photo("IMG_\(n).HEIC", live: true, identifier: uuid, paired: movie)
                _ = try add([movie, root, 2049, Int64(n) * 4 + 2, 3_000_000, mtime, "video", "video/quicktime", 1920, 1440, 1,
                             2.8, taken, added, false, false, false, false, uuid, nil, id, nil, nil, nil, nil, false, nil])
            case 90..<100:  // a Motion Photo
                _ = try photo("PXL_\(n).MP.jpg", live: true, motion: true)
            case 100..<104:  // a burst of 5 to 12 photos, the first of them its lead
                let members = min(5 + rng.below(8), count - made)
                for k in 0..<members {
                    _ = try photo("IMG_\(n)_BURST\(k).JPG", burst: true, lead: k == 0, burstKey: "apple:B\(n)")
                }
            case 104..<124:
                _ = try photo("Screenshot_\(n).png", screenshot: true)
            case 124..<129:
                _ = try photo("PANO_\(n).jpg", panorama: true)
            case 129..<130:
                _ = try photo("IMG_\(n).JPG", unreadable: "not a JPEG: damaged header")
            default:
                _ = try photo("IMG_\(n).JPG")
            }
        }
    }
    try queue.close()
}

func list(index path: String, runs: Int, warmup: Int, limit: Int) throws {
    let opened = ContinuousClock.now
    let index = try LibraryIndex.open(path: path)
    let openMs = ms(ContinuousClock.now - opened)
    let rows = try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM asset") ?? 0 }
    // As `gpick library list` asks: the whole library's roots, newest added first.
    let queries: [(String, AssetQuery)] = [
        ("newest", AssetQuery(limit: limit, roots: MediaRoots(paths: [root]))),
        ("newest-live", AssetQuery(kind: .live, limit: limit, roots: MediaRoots(paths: [root]))),
        ("newest-video", AssetQuery(kind: .video, limit: limit, roots: MediaRoots(paths: [root]))),
    ]
    var out: [String: Any] = ["rows": rows, "assets": try index.count(), "limit": limit, "open_ms": openMs,
                              "warmup": warmup]
    for (name, query) in queries {
        var first: Double?
        var times: [Double] = []
        var listed: [ListedAsset] = []
        for i in 0..<(warmup + runs) {
            let t0 = ContinuousClock.now
            listed = try index.list(query)
            let elapsed = ms(ContinuousClock.now - t0)
            if first == nil { first = elapsed }
            if i >= warmup { times.append(elapsed) }
        }
        let added = listed.map(\.asset.addedAt)
        out[name] = ["first_ms": first ?? 0, "runs_ms": times, "listed": listed.count,
                     "newest_first": zip(added, added.dropFirst()).allSatisfy { $0 >= $1 },
                     "bursts": listed.filter { $0.asset.burst }.count]
    }
    // What-if, not gpick's code path: the same request with the roots' path range kept off the
    // path index (unary +), so SQLite walks the addedAt index and stops at the limit.
    let queue = try DatabaseQueue(path: path)
    var whatIf: [Double] = []
    var count = 0
    for i in 0..<(warmup + runs) {
        let t0 = ContinuousClock.now
        count = try queue.read { db in
            typealias C = Asset.Columns
            let assets = try Asset.filter(C.companionOf == nil).filter(C.burst == false || C.burstLead == true)
                .filter(C.unreadable == nil).filter(sql: "+path >= ? AND +path < ?", arguments: [root + "/", root + "0"])
                .order(C.addedAt.desc, C.id.desc).limit(limit).fetchAll(db)
            return assets.count
        }
        if i >= warmup { whatIf.append(ms(ContinuousClock.now - t0)) }
    }
    out["what-if-unindexed-roots"] = ["runs_ms": whatIf, "listed": count]
    // And its rows alone, not decoded into Assets: the SQL's share of the time.
    var rowsOnly: [Double] = []
    for i in 0..<(warmup + runs) {
        let t0 = ContinuousClock.now
        count = try queue.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM asset WHERE companionOf IS NULL AND (burst = 0 OR burstLead = 1) AND unreadable IS NULL
                AND +path >= ? AND +path < ? ORDER BY addedAt DESC, id DESC LIMIT ?
                """, arguments: [root + "/", root + "0", limit]).count
        }
        if i >= warmup { rowsOnly.append(ms(ContinuousClock.now - t0)) }
    }
    out["what-if-rows-only"] = ["runs_ms": rowsOnly, "listed": count]
    let data = try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

func ms(_ d: Duration) -> Double {
    let (s, atto) = d.components
    return Double(s) * 1000 + Double(atto) / 1e15
}

var args = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, _ fallback: Int, _ args: inout [String]) -> Int {
    guard let i = args.firstIndex(of: name) else { return fallback }
    guard i + 1 < args.count, let v = Int(args[i + 1]), v >= 0 else { fail("\(name) takes a number") }
    args.removeSubrange(i...(i + 1))
    return v
}
do {
    switch args.first {
    case "fill":
        guard args.count == 3, let count = Int(args[2]), count > 0 else { fail("usage: gpick-libbench fill INDEX COUNT") }
        try fill(index: args[1], count: count)
    case "list":
        let runs = option("--runs", 50, &args), warmup = option("--warmup", 5, &args), limit = option("--limit", 1000, &args)
        guard args.count == 2 else { fail("usage: gpick-libbench list INDEX [--runs N] [--warmup N] [--limit N]") }
        try list(index: args[1], runs: max(1, runs), warmup: warmup, limit: limit)
    default:
        fail("usage: gpick-libbench fill INDEX COUNT | list INDEX [--runs N] [--warmup N] [--limit N]")
    }
} catch {
    fail("\(error)")
}
