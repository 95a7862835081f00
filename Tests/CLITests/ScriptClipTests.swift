import Foundation
import GpickTestSupport
import Testing

/// `clips start NAME [pre D] [post D] [in ZONE] [snap] [keep …]` in scripts: the clips `gpick
/// watch --record` writes, from the pre-roll ring, while the script goes on. The test source's
/// `moves=A-B` sends a block across the middle of the picture in frames A to B-1 only, so the
/// frames' stamps say where each clip starts and ends against its motion.
@Suite struct ScriptClipTests {
    static let zones = """
        zone middle 0,0.3 1,0.3 1,0.7 0,0.7
        zone top 0,0 1,0 1,0.25 0,0.25
        """

    /// Two bursts far apart: the first clip is whole (from a second before its first moving frame
    /// to two after its last) and has its still; the second is under way when `clips stop` ends
    /// it where the frames are, and plays as it is. The first motion comes seven seconds in, after
    /// the session and its ring are up on a loaded machine too.
    @Test func eachMotionIsAClipWhileTheScriptGoesOn() async throws {
        let (r, _, e) = try await ScriptMotionTests.run("""
            \(Self.zones)
            clips start door/m-%n.mp4 pre 1s post 2s in middle snap
            wait motion in middle timeout 30s
            wait motion in middle timeout 30s
            clips stop
            """, source: "test:colors?moves=210-240,420-450", subfolders: ["door"])
        #expect(r.status == 0, "\(r.stderr)")
        let started = e.filter { $0["event"] as? String == "clip-started" }
        #expect(started.map { $0["number"] as? Int } == [1, 2] && started.allSatisfy { $0["line"] as? Int == 3 }, "\(started)")
        let clips = WatchClipTests.clips(e)
        try #require(clips.count == 2, "\(e.filter { ($0["event"] as? String)?.hasPrefix("motion") != true })")
        let paths = try clips.map { try #require($0["path"] as? String) }
        #expect(paths.map { $0.split(separator: "/").suffix(2).joined(separator: "/") } == ["door/m-1.mp4", "door/m-2.mp4"], "\(paths)")
        let stills = e.filter { $0["event"] as? String == "file-written" && $0["still"] as? Bool == true }
        #expect(stills.compactMap { ($0["path"] as? String)?.split(separator: "/").last } == ["m-1.jpg", "m-2.jpg"], "\(stills)")

        let whole = try await Media.stampIndices(paths[0])
        let first = try #require(whole.first ?? nil), last = try #require(whole.last ?? nil)
        #expect(Media.isConsecutive(whole, from: first), "\(paths[0]): frames missing in \(first)…\(last)")
        #expect(first <= 210 - 30 && first >= 210 - 61, "\(paths[0]) starts at frame \(first), motion at 210")
        #expect(last >= 239 + 60 && last <= 239 + 75, "\(paths[0]) ends at frame \(last), motion until 239")
        #expect(try await WatchClipTests.ffprobeFrames(paths[0]) == whole.count)

        // Cut by `clips stop`: from before its motion to wherever the frames were.
        let cut = try await Media.stampIndices(paths[1])
        let from = try #require(cut.first ?? nil)
        #expect(Media.isConsecutive(cut, from: from) && from <= 420 - 30 && (cut.last ?? nil).map { $0 >= 420 } == true, "\(paths[1]): \(cut)")
        #expect(try await WatchClipTests.ffprobeFrames(paths[1]) == cut.count)
        #expect(e.contains { $0["event"] as? String == "clips-stopped" && $0["clips"] as? Int == 2 && $0["line"] as? Int == 6 }, "\(e)")
    }

    /// Motion only outside the clips' zone makes no clip.
    @Test func motionElsewhereMakesNoClip() async throws {
        let (r, _, e) = try await ScriptMotionTests.run("""
            \(Self.zones)
            clips start m-%n.mp4 in top
            wait motion in middle for 0.5s timeout 30s
            clips stop
            """, source: "test:colors?moves=150-180")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!e.contains { $0["event"] as? String == "clip-started" }, "\(e)")
        #expect(e.contains { $0["event"] as? String == "clips-stopped" && $0["clips"] as? Int == 0 }, "\(e)")
        #expect(!e.contains { $0["event"] as? String == "file-written" }, "\(e)")
    }
}
