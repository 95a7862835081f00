import Foundation
import GpickTestSupport
import Testing

/// `gpick pick --ui web` as a user runs it: a library of real files scanned by gpick, the page
/// driven in a real headless Chromium (Selenium with Debian's chromium-driver), the results read
/// from stdout and the exit status. One picker (and one browser at a time) per test.
@Suite(.serialized) struct PickerWebTests {
    typealias Library = LibrarySheetTests.Library

    /// A running `gpick pick`: its page's URL, with the token.
    struct Running {
        let process: Subprocess.Running
        let url: String
        var origin: String { String(url.prefix { $0 != "?" }).replacing(/\/$/, with: "") }
        var token: String { String(url.split(separator: "token=").last ?? "") }

        /// Runs the browser side: `picker_driver.py URL STEP ARGS…` in a tab of the shared
        /// browser, its JSON answer. `then` is a further step (a step's name and its arguments)
        /// in the same tab: a second tab would come after the page closed, and closing the page
        /// ends the picker.
        func drive(_ step: String, _ args: [String] = [], then: [String] = []) async throws -> [String: Any] {
            let steps = [step] + args + (then.isEmpty ? [] : ["--then"] + then)
            let said = try await BrowserHost.picker.session([url] + steps, timeout: 90)
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(said.utf8)) as? [String: Any], "driver: \(said)")
            #expect(answer["ok"] as? Bool == true, "\(step): \(answer)")
            return answer
        }

        func curl(_ path: String, _ extra: [String] = []) async throws -> String {
            try await Subprocess.run("/usr/bin/curl", ["-s", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}"] + extra + [origin + path]).stdout
        }

        func finish(timeout: Double = 20) async throws -> Subprocess.Result { try await process.wait(timeout: timeout) }
    }

    static func pick(_ lib: Library, _ args: [String]) async throws -> Running {
        let p = try Subprocess.start(TestEnvironment.binary, ["pick", "--ui", "web", "--no-open", "--library", lib.root] + args,
                                     env: lib.env.merging(["DISPLAY": ""]) { $1 })
        let err = try await p.waitForOutput("token=", stderr: true)
        let url = try #require(err.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init))
        return Running(process: p, url: url.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func cells(_ answer: [String: Any]) -> [[String: Any]] { answer["cells"] as? [[String: Any]] ?? [] }
    static func items(_ answer: [String: Any]) -> [[String: Any]] { cells(answer).filter { $0["kind"] as? String == "item" } }

    /// A library of red.jpg and cut.jpg, a copy cut short in its image data: listed (its header
    /// reads), but no picture can be decoded from it. Its listing, and cut.jpg's place in it.
    static func withUndecodablePhoto() async throws -> (Library, [(id: String, path: String, taken: String?)], Int) {
        let lib = try await Library(["red.jpg": "red.jpg"], scan: false)
        let whole = try Data(contentsOf: URL(fileURLWithPath: lib.root + "/red.jpg"))
        try whole.prefix(whole.count * 2 / 3).write(to: URL(fileURLWithPath: lib.root + "/cut.jpg"))
        let scan = try await lib.run(["library", "scan"])
        guard scan.status == 0 else { throw TestFailure("scan: \(scan.stderr)") }
        let listed = try await listed(lib)
        let at = try #require(listed.firstIndex { $0.path.hasSuffix("/cut.jpg") }, "the cut photo is not listed: \(listed)")
        return (lib, listed, at)
    }

    /// Ids of the library's assets by file name, as `library list` gives them (newest first).
    static func listed(_ lib: Library) async throws -> [(id: String, path: String, taken: String?)] {
        let r = try await lib.run(["library", "list", "--json"])
        return LibrarySheetTests.events(r, "asset").map { ("a\($0["id"] as? Int ?? 0)", $0["path"] as? String ?? "", $0["taken"] as? String) }
    }

    @Test func theGridShowsTheNewestAssetsWithTheirBadgesAndClosingThePageCancels() async throws {
        let lib = try await Library(LibrarySheetTests.everyKind)
        let listed = try await Self.listed(lib)
        let picker = try await Self.pick(lib, ["--no-camera", "--columns", "3"])
        let answer = try await picker.drive("grid", ["5"])
        let items = Self.items(answer)
        // Five cells (the pair's movie is its photo's, the burst one cell), in the index's order.
        #expect(items.map { $0["id"] as? String ?? "" } == listed.map(\.id), "\(items)")
        #expect(!Self.cells(answer).contains { $0["kind"] as? String == "camera" }, "--no-camera shows no camera cell")
        let badgeOf = ["IMG_0001.JPG": ["LIVE"], "shot-001.jpg": ["×3"], "clip.mp4": ["▶ 0:03"], "pano.jpg": ["PANO"], "red.jpg": []]
        // What a screen reader says: name, kind, and the date taken in the page's language and
        // the browser's time zone (this process's).
        let kindOf = ["IMG_0001.JPG": "live photo", "shot-001.jpg": "photo, burst of 3", "clip.mp4": "video 0:03",
                      "pano.jpg": "photo, panorama", "red.jpg": "photo"]
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = .current
        day.dateFormat = "d MMMM yyyy"
        for (item, asset) in zip(items, listed) {
            let name = (asset.path as NSString).lastPathComponent
            #expect(item["badges"] as? [String] == badgeOf[name], "\(name): \(item)")
            let taken = try #require(asset.taken.flatMap { ISO8601DateFormatter().date(from: $0) }, "\(name): no date taken")
            #expect(item["label"] as? String == "\(name), \(kindOf[name] ?? "?"), \(day.string(from: taken))", "\(item)")
            #expect(item["painted"] as? Bool == true, "\(name): its thumbnail was painted")
        }
        // The browser has gone: the page is closed, and the picker ends as cancelled, printing nothing.
        let r = try await picker.finish()
        #expect(r.status == 130 && r.stdout.isEmpty, "\(r.status) \(r.stdout) \(r.stderr)")
    }

    /// A listing longer than the page's head: the page comes with the first 80 items and its head
    /// asks for the first rows' thumbnails; the rest of the listing follows, in order.
    @Test func aLongListingComesWholeAfterItsFirstScreen() async throws {
        var files: [String: String] = [:]
        for n in 0..<100 { files[String(format: "p%03d.jpg", n)] = n % 2 == 0 ? "red.jpg" : "blue.jpg" }
        let lib = try await Library(files)
        let listed = try await Self.listed(lib)
        #expect(listed.count == 100)
        let picker = try await Self.pick(lib, ["--no-camera", "--columns", "4"])
        let page = try await Subprocess.run("/usr/bin/curl", ["-s", "--max-time", "5", picker.url]).stdout
        let preload = "/thumbs?px=256&ids=" + listed.prefix(12).map(\.id).joined(separator: ",")
        #expect(page.contains("<link rel=\"preload\" href=\"\(preload)\" as=\"fetch\" crossorigin>"), "\(page.prefix(600))")
        #expect(page.components(separatedBy: "\"id\":\"a").count - 1 == 80, "the page embeds the first 80 items")
        let answer = try await picker.drive("all", ["100", "12"])
        let items = Self.items(answer)
        #expect(items.map { $0["id"] as? String ?? "" } == listed.map(\.id))
        #expect(answer["status"] as? String == "100 items")
        // The first screen's pictures come, and come first at the server (the preload above, and
        // theFirstThumbnailsComeInOneAnswerByIdOnly); when the browser paints them is its own.
        let first = answer["first"] as? [[String: Any]] ?? []
        #expect(first.map { $0["id"] as? String ?? "" } == listed.prefix(12).map(\.id), "\(first)")
        #expect(first.count == 12 && first.allSatisfy { $0["painted"] as? Bool == true }, "\(first)")
        let r = try await picker.finish()
        #expect(r.status == 130, "\(r.stderr)")
    }

    @Test func twoChosenWithMultiPrintExactlyTheirPathsInTheOrderChosen() async throws {
        let lib = try await Library(["red.jpg": "red.jpg", "pano.jpg": "pano.jpg", "clip.mp4": "green.mp4"])
        let listed = try await Self.listed(lib)
        let picker = try await Self.pick(lib, ["--no-camera", "--multi"])
        let chosen = [listed[2], listed[0]]
        _ = try await picker.drive("choose", chosen.map(\.id))
        let r = try await picker.finish()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == chosen.map { $0.path + "\n" }.joined(), "\(r.stdout)")
    }

    /// A photo gpick lists but cannot decode (here a JPEG cut short in its image data; an iPhone
    /// HEIC that Debian's libheif refuses is the same to the page) gets a cell that says what it
    /// is and why, not a broken image, and it can still be chosen: its path is printed.
    @Test func anUndecodablePhotoSaysWhatItIsAndStaysChoosable() async throws {
        let (lib, listed, at) = try await Self.withUndecodablePhoto()
        let cut = listed[at]
        let picker = try await Self.pick(lib, ["--no-camera"])
        let answer = try await picker.drive("unreadable", ["2"], then: ["choose", cut.id])
        let cells = Self.items(answer)
        let shown = try #require(cells.first { $0["id"] as? String == cut.id })
        #expect(shown["unreadable"] as? [String] == ["cut.jpg", "photo, no preview", "the file is truncated or damaged"], "\(shown)")
        #expect(cells.first { $0["id"] as? String != cut.id }?["painted"] as? Bool == true, "\(cells)")
        let r = try await picker.finish()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == cut.path + "\n", "\(r.stdout)")
    }

    /// The camera rests when its cell is scrolled out of view, and wakes when it is seen again:
    /// the blurred last frame, then live frames, never a black one; events say both.
    @Test func theCameraCellRestsOutOfViewAndWakesWithoutABlackFrame() async throws {
        let lib = try await Library(LibrarySheetTests.everyKind)
        let picker = try await Self.pick(lib, ["--source", "test", "--width", "320", "--height", "240", "--columns", "1", "--json"])
        let answer = try await picker.drive("rest", then: ["key", "ESCAPE"])
        #expect((answer["rested_after"] as? Double ?? 99) < 2, "\(answer)")
        #expect((answer["woke_after"] as? Double ?? 99) < 3, "\(answer)")
        #expect(answer["state"] as? String == "live")
        let luma = answer["luma"] as? [Double] ?? []
        #expect(luma.count >= 10 && luma.allSatisfy { $0 > 40 }, "a dark frame while waking: \(luma)")
        let r = try await picker.finish()
        #expect(r.status == 130)
        let events = r.events
            .compactMap { $0["event"] as? String }.filter { $0.hasPrefix("camera-") }
        #expect(events == ["camera-suspended", "camera-resumed"], "\(r.stdout)")
    }

    /// A page hidden behind another tab (`document.hidden`) rests the camera as scrolling does,
    /// and wakes it when shown again; the picker's own state says so, not only the page.
    @Test func theCameraCellRestsWhileThePageIsHidden() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let picker = try await Self.pick(lib, ["--source", "test", "--width", "320", "--height", "240", "--json"])
        let answer = try await picker.drive("hide", then: ["key", "ESCAPE"])
        #expect(answer["hidden_state"] as? String == "suspended", "\(answer)")
        #expect(answer["state"] as? String == "live", "\(answer)")
        let r = try await picker.finish()
        #expect(r.status == 130)
        let events = r.events
            .compactMap { $0["event"] as? String }.filter { $0.hasPrefix("camera-") }
        #expect(events == ["camera-suspended", "camera-resumed"], "\(r.stdout)")
    }

    /// An app follows the selection as it is made: three toggles are three events, in order.
    @Test func selectionIsReportedAsItChanges() async throws {
        let lib = try await Library(["red.jpg": "red.jpg", "pano.jpg": "pano.jpg", "clip.mp4": "green.mp4"])
        let listed = try await Self.listed(lib)
        let picker = try await Self.pick(lib, ["--no-camera", "--multi", "--json"])
        let (a, b) = (listed[0], listed[1])
        _ = try await picker.drive("toggle", [a.id, b.id, a.id], then: ["key", "ESCAPE"])
        let r = try await picker.finish()
        #expect(r.status == 130)
        let events = r.events
            .filter { ["selected", "deselected"].contains($0["event"] as? String) }
        #expect(events.map { $0["event"] as? String } == ["selected", "selected", "deselected"], "\(r.stdout)")
        #expect(events.map { "\($0["id"] ?? "")" } == [a.id, b.id, a.id], "\(events)")
        #expect(events.map { $0["path"] as? String } == [a.path, b.path, a.path], "\(events)")
    }

    @Test func escapeCancelsWith130AndPrintsNothing() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let picker = try await Self.pick(lib, ["--no-camera"])
        _ = try await picker.drive("key", ["ESCAPE"])
        let r = try await picker.finish()
        #expect(r.status == 130 && r.stdout.isEmpty, "\(r.status) \(r.stdout)")
    }

    @Test func clickingTheCameraCellTakesAPhotoThatComesFirstSelected() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let out = lib.dir + "/captures"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let picker = try await Self.pick(lib, ["--source", "test", "--width", "320", "--height", "240", "--output-dir", out, "--json"])
        let answer = try await picker.drive("snap")
        let first = try #require(Self.items(answer).first)
        #expect(first["id"] as? String == "c1" && first["selected"] as? Bool == true, "\(Self.items(answer))")
        #expect(first["painted"] as? Bool == true)
        let r = try await picker.finish()
        #expect(r.status == 130)
        let captured = try #require(LibrarySheetTests.events(r, "captured").first)
        let path = try #require(captured["path"] as? String)
        #expect(path == out + "/pick-0001.jpg" && captured["kind"] as? String == "photo")
        // The still is a frame of the test camera (its stamp says so), written whole.
        #expect(try await Media.frames(path).first?.stamp?.sourceID == 1)
        #expect(TestEnvironment.files(in: out) == ["pick-0001.jpg"])
        // Dated and named as every still gpick writes: other photo software can sort it.
        #expect(try await ExifTags.problems(path) == [])
    }

    /// A video stops by itself at --longest-video (UIImagePickerController's videoMaximumDuration)
    /// and joins the grid at its head, selected, with nothing clicked; then one stopped by hand
    /// after a second joins it the same way. Each holds the camera's frames without a gap, the
    /// first exactly its longest length.
    @Test func aVideoStopsByItselfAtItsLongestAndJoinsTheGrid() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let out = lib.dir + "/captures"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let picker = try await Self.pick(lib, ["--source", "test", "--width", "320", "--height", "240", "--output-dir", out,
                                               "--longest-video", "2s", "--json"])
        let answer = try await picker.drive("record", then: ["record", "1"])
        let videos = answer["videos"] as? [[String: Any]] ?? []
        #expect(videos.map { $0["status"] as? String } == ["Video recorded", "Video recorded"], "\(videos)")
        let items = Self.items(answer)
        #expect(items.prefix(2).map { $0["id"] as? String } == ["c2", "c1"] && items.first?["selected"] as? Bool == true, "\(items)")
        #expect(items.prefix(2).allSatisfy { $0["painted"] as? Bool == true })
        let r = try await picker.finish()
        #expect(r.status == 130)
        let captured = LibrarySheetTests.events(r, "captured")
        #expect(captured.map { $0["path"] as? String } == [out + "/pick-0001.mp4", out + "/pick-0002.mp4"]
                && captured.allSatisfy { $0["kind"] as? String == "video" }, "\(captured)")
        let longest = try await Media.stampIndices(out + "/pick-0001.mp4")
        #expect(longest.count == 60 && Media.isConsecutive(longest, from: longest.first! ?? -1), "\(longest.count) frames")
        let byHand = try await Media.stampIndices(out + "/pick-0002.mp4")
        // Clicked a second after the cell said it records (a loaded machine's source may run behind the clock).
        #expect(byHand.count >= 20 && Media.isConsecutive(byHand, from: byHand.first! ?? -1), "\(byHand.count) frames")
        #expect(TestEnvironment.files(in: out) == ["pick-0001.mp4", "pick-0002.mp4"])
    }

    /// A video still recording when the picker is cancelled is finished and kept, as a photo
    /// taken before it would be: with --save-to-library it is in the library, whole.
    @Test func aVideoRecordingWhenThePickerIsCancelledIsKept() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let picker = try await Self.pick(lib, ["--source", "test", "--width", "320", "--height", "240", "--save-to-library", "--json"])
        let post = ["-s", "-X", "POST", "-H", "X-Gpick-Token: \(picker.token)", "-H", "Content-Type: application/json"]
        // Started as the page's Rec button starts it, once the camera is there.
        let deadline = Date().addingTimeInterval(HangBound.seconds(30))
        var said = ""
        while !said.contains("\"recording\":true") {
            guard Date() < deadline else { throw TestFailure("no recording started: \(said)") }
            said = try await Subprocess.run("/usr/bin/curl", post + ["-d", "{\"on\":true}", picker.origin + "/api/record"]).stdout
            if !said.contains("\"recording\":true") { try await Task.sleep(for: .milliseconds(100)) }
        }
        // Half a second of video, then the picker is cancelled as Esc would.
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await Subprocess.run("/usr/bin/curl", post + [picker.origin + "/api/cancel"]).stdout.contains("\"ok\":true"))
        let r = try await picker.finish()
        #expect(r.status == 130 && LibrarySheetTests.events(r, "picked").isEmpty, "\(r.status) \(r.stdout)")
        let captured = try #require(LibrarySheetTests.events(r, "captured").first, "\(r.stdout) \(r.stderr)")
        let path = try #require(captured["path"] as? String)
        #expect(captured["kind"] as? String == "video" && !path.hasPrefix("/tmp/gpick-pick-") && path.hasSuffix("/pick-0001.mp4"), "\(captured)")
        let stamps = try await Media.stampIndices(path)
        #expect(stamps.count >= 5 && Media.isConsecutive(stamps, from: stamps.first! ?? -1), "\(stamps.count) frames")
    }

    /// The flip's screenshots, every ~40 ms for 1.5 s and at least ten of them: the cell never
    /// goes black (the blurred last frame stands in until the other camera delivers).
    @Test func flipShowsNoBlackFrame() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let picker = try await Self.pick(lib, ["--source", "test", "--width", "320", "--height", "240", "--output-dir", lib.dir])
        let answer = try await picker.drive("flip", ["1.5"])
        let luma = answer["luma"] as? [Double] ?? []
        #expect(luma.count >= 10, "\(luma)")
        #expect(luma.allSatisfy { $0 > 40 }, "a dark frame during the flip: \(luma)")
        #expect(answer["status"] as? String == "Camera: front")
        _ = try await picker.finish()
    }

    /// Check 31: no token, a foreign Host, `..` or an absolute path: 403, 403, 404. Then a call
    /// with the token's header ends the picker.
    @Test func takeOrPickAsksThenTakesAPhotoInThePage() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let out = TestEnvironment.tempDir("take-or-pick-web")
        let picker = try await Self.pick(lib, ["--take-or-pick", "--output-dir", out, "--source", "test", "--width", "320", "--height", "240"])
        let answer = try await picker.drive("take")
        let question = (answer["question"] as? [[String: Any]] ?? []).map { "\($0["kind"] ?? "")/\($0["text"] ?? "")" }
        #expect(question == ["action/Take photo", "action/Choose from library"], "\(question)")
        #expect(Self.cells(answer).map { $0["kind"] as? String ?? "" } == ["camera"], "the camera stage shows the camera alone")
        let r = try await picker.finish()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines == [out + "/pick-0001.jpg"], "\(r.stdout)")
        #expect(try await Media.frames(out + "/pick-0001.jpg").first?.stamp?.sourceID == 1)
    }

    @Test func theTokenAndTheHostAreRequiredAndAssetsGoByIdOnly() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let picker = try await Self.pick(lib, ["--no-camera"])
        let header = ["-H", "X-Gpick-Token: \(picker.token)"]
        let port = picker.origin.split(separator: ":").last ?? ""
        #expect(try await picker.curl("/") == "403")
        #expect(try await picker.curl("/api/items") == "403")
        #expect(try await picker.curl("/thumb/a1") == "403")
        #expect(try await picker.curl("/?token=\(picker.token)", ["-H", "Host: rebound.example:\(port)"]) == "403")
        #expect(try await picker.curl("/?token=\(picker.token)") == "200")
        try await Self.expectOnlyItsOwnScriptAndStyle(picker)
        for path in ["/thumb/../../etc/passwd", "/thumb//etc/passwd", "/thumb/%2e%2e%2fetc%2fpasswd", "/thumb/a999", "/etc/passwd"] {
            #expect(try await picker.curl(path, header + ["--path-as-is"]) == "404", "\(path)")
        }
        #expect(try await picker.curl("/api/cancel", ["-X", "POST", "-H", "Cookie: gpick-token-\(port)=\(picker.token)"]) == "403")
        #expect(try await picker.curl("/api/cancel", ["-X", "POST"] + header) == "200")
        let r = try await picker.finish()
        #expect(r.status == 130 && r.stdout.isEmpty)
    }

    /// The page's policy lets run only the script and stylesheet the page carries, each named by
    /// the SHA-256 of its text (computed here by coreutils' sha256sum), and nothing inline else.
    static func expectOnlyItsOwnScriptAndStyle(_ picker: Running) async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.run("/usr/bin/curl", ["-s", "--max-time", "10", "-D", dir + "/headers", "-o", dir + "/page.html",
                                                           picker.url])
        #expect(r.status == 0, "\(r.stderr)")
        let headers = try String(contentsOfFile: dir + "/headers", encoding: .utf8)
        let page = try String(contentsOfFile: dir + "/page.html", encoding: .utf8)
        let policy = try #require(headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-security-policy:") }, "\(headers)")
        var directives: [String: [String]] = [:]
        for part in policy.dropFirst("content-security-policy:".count).split(separator: ";") {
            let words = part.split(separator: " ").map(String.init)
            if let name = words.first { directives[name] = Array(words.dropFirst()) }
        }
        // The inline elements: <script> and <style> with no attributes (the JSON data blocks have a type).
        func inline(_ tag: String) -> [String] {
            page.components(separatedBy: "<\(tag)>").dropFirst().compactMap { $0.components(separatedBy: "</\(tag)>").first }
        }
        func hash(_ text: String) async throws -> String {
            let file = dir + "/" + UUID().uuidString
            try text.write(toFile: file, atomically: false, encoding: .utf8)
            let hex = try await Subprocess.run("/usr/bin/sha256sum", [file]).stdout.prefix(64)
            let bytes = stride(from: 0, to: 64, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16) ?? 0 }
            return "'sha256-\(Data(bytes).base64EncodedString())'"
        }
        let scripts = inline("script"), styles = inline("style")
        #expect(scripts.count == 1 && styles.count == 1, "one inline script and one stylesheet: \(scripts.count), \(styles.count)")
        #expect(directives["script-src"] == [try await hash(scripts.first ?? "")], "\(policy)")
        #expect(directives["style-src"] == ["'self'", try await hash(styles.first ?? "")], "\(policy)")
        #expect(!policy.contains("unsafe"), "\(policy)")
    }

    /// The first screenful's thumbnails in one answer (`/thumbs`): a line per id, in the cache's
    /// own bytes (cached ones and one made for the request alike), an error line for an unknown
    /// id; the token is required and only ids are taken.
    @Test func theFirstThumbnailsComeInOneAnswerByIdOnly() async throws {
        let lib = try await Library(["red.jpg": "red.jpg", "blue.jpg": "blue.jpg", "clip.mp4": "green.mp4"])
        let listed = try await Self.listed(lib)
        let red = try #require(listed.first { $0.path.hasSuffix("/red.jpg") })
        // red.jpg's thumbnail is in the cache before the picker asks; the others are made for it.
        let made = try await Subprocess.gpick(["library", "thumbs", red.path], env: lib.env)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(TestEnvironment.files(in: lib.cache + "/large").count == 1, "gpick library thumbs made it in the shared cache")
        let picker = try await Self.pick(lib, ["--no-camera"])
        let ids = listed.map(\.id) + ["a999"]
        #expect(try await picker.curl("/thumbs?ids=\(ids.joined(separator: ","))") == "403")
        let header = ["-H", "X-Gpick-Token: \(picker.token)"]
        let tooMany = (1...201).map { "a\($0)" }.joined(separator: ",")
        for bad in ["", "a1,../etc/passwd", "a1,,a2", "a1%0Aok", tooMany] {
            #expect(try await picker.curl("/thumbs?px=256&ids=" + bad, header) == "400", "\(bad.prefix(40))")
        }
        let r = try await Subprocess.run("/usr/bin/curl", ["-s", "--max-time", "20"] + header + [picker.origin + "/thumbs?px=200&ids=" + ids.joined(separator: ",")])
        let lines = r.stdout.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 2).map(String.init) }
        #expect(Set(lines.map(\.[0])) == Set(ids) && lines.count == ids.count, "\(lines.map { $0.prefix(2) })")
        #expect(lines.first { $0[0] == "a999" }?[1] == "error")
        let cache = lib.cache + "/large"
        let cached = Set(TestEnvironment.files(in: cache).compactMap { FileManager.default.contents(atPath: cache + "/" + $0) })
        for (id, path, _) in listed {
            let line = try #require(lines.first { $0[0] == id })
            #expect(line[1] == "ok", "\(path): \(line.dropFirst())")
            let png = try #require(Data(base64Encoded: line.count > 2 ? line[2] : ""), "\(path)")
            #expect(cached.contains(png), "\(path): the cache's own thumbnail")
            #expect(png.range(of: Data("Thumb::URI\u{0}file://\(path)".utf8)) != nil, "\(path): its Thumb::URI")
            let file = lib.dir + "/\(id).png"
            try png.write(to: URL(fileURLWithPath: file))
            let image = try await Media.rgb(file)
            #expect(max(image.width, image.height) == 256, "\(path): \(image.width)×\(image.height)")
            let centre = (image.height / 2 * image.width + image.width / 2) * 3
            let rgb = Array(image.pixels[centre..<centre + 3]).map(Int.init)
            let want = LibrarySheetTests.colours[path.hasSuffix("red.jpg") ? "red.jpg" : path.hasSuffix("blue.jpg") ? "blue.jpg" : "green.mp4"]!
            #expect(abs(rgb[0] - want.0) < 60 && abs(rgb[1] - want.1) < 60 && abs(rgb[2] - want.2) < 60, "\(path): \(rgb)")
        }
        #expect(try await picker.curl("/api/cancel", ["-X", "POST"] + header) == "200")
        #expect(try await picker.finish().status == 130)
    }

    /// A camera that cannot be opened: with --no-camera nothing tries (no overlay, no error);
    /// without it the page says why, and picking still works.
    @Test func noCameraNeverOpensTheDeviceAndABrokenCameraStillPicks() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let missing = "v4l2:/dev/gpick-no-such-camera"
        let quiet = try await Self.pick(lib, ["--no-camera", "--source", missing, "--json"])
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await quiet.curl("/api/cancel", ["-X", "POST", "-H", "X-Gpick-Token: \(quiet.token)"]) == "200")
        let q = try await quiet.finish()
        #expect(q.status == 130 && LibrarySheetTests.events(q, "problem").isEmpty, "\(q.stdout)")
        #expect(!q.stderr.contains("gpick-no-such-camera"), "\(q.stderr)")

        let broken = try await Self.pick(lib, ["--source", missing])
        let id = try #require(try await Self.listed(lib).first?.id)
        var state = ""
        for _ in 0..<100 where !(state.contains("gpick-no-such-camera") && state.contains("\"failed\"")) {
            state = try await Subprocess.run("/usr/bin/curl", ["-s", "-H", "X-Gpick-Token: \(broken.token)", broken.origin + "/api/state"]).stdout
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(state.contains("gpick-no-such-camera") && state.contains("\"failed\""), "the page says why the camera failed: \(state)")
        let status = try await Subprocess.run("/usr/bin/curl", ["-s", "-X", "POST", "-H", "X-Gpick-Token: \(broken.token)",
                                                                "-d", "{\"ids\":[\"\(id)\"]}", broken.origin + "/api/confirm"])
        #expect(status.stdout.contains("\"ok\":true"), "\(status.stdout)")
        let r = try await broken.finish()
        #expect(r.status == 0 && r.stdout == lib.root + "/red.jpg\n", "\(r.status) \(r.stdout) \(r.stderr)")
    }

    @Test func badLayoutIsOneUsageLine() async throws {
        let lib = try await Library([:], scan: false)
        for (args, words) in [(["--columns", "0"], "--columns must be 1 or more"),
                              (["--action", "a", "--action", "b", "--action", "c"], "at most 2 action items"),
                              (["--longest-video", "0.5s"], "--longest-video 0.5s must be a duration of 1s…24h"),
                              (["--longest-video", "soon"], "--longest-video soon must be a duration of 1s…24h")] {
            let r = try await lib.run(["pick", "--no-open", "--no-camera"] + args)
            #expect(r.status == 64 && r.stderrLines.count == 1 && r.stderr.contains(words), "\(args): \(r.stderr)")
        }
    }
}
