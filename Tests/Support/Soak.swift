import Foundation

/// Runs the `gpick-soak` executable (a process of its own, so other tests' fds do not count) and
/// reads what it measured of itself.
public struct SoakReport: Sendable {
    public let fdsBefore: Int
    public let fdsAfter: Int
    public let rssBeforeKiB: Int
    public let rssAfterKiB: Int

    public static func run(_ args: [String], outputDir: String, timeout: Double) async throws -> SoakReport {
        let soak = TestEnvironment.debugBuild + "/gpick-soak"
        // Two malloc arenas: with glibc's default (one per thread, up to 8 per core) the RSS a
        // soak ends with depends on how its threads happened to overlap (18–32 MiB after 50
        // cycles here, levelling off by 150); with two it is what the code keeps (~3 MiB), and a
        // leak stands out.
        let r = try await Subprocess.run(soak, args + ["\(TestEnvironment.repoRoot)/pipelines", outputDir],
                                         env: ["MALLOC_ARENA_MAX": "2"], timeout: timeout)
        guard r.status == 0 else { throw TestFailure("gpick-soak \(args): \(r.stderr)") }
        guard let o = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Int],
              let fb = o["fdsBefore"], let fa = o["fdsAfter"], let rb = o["rssBeforeKiB"], let ra = o["rssAfterKiB"] else {
            throw TestFailure("gpick-soak printed no report: \(r.stdout)")
        }
        return SoakReport(fdsBefore: fb, fdsAfter: fa, rssBeforeKiB: rb, rssAfterKiB: ra)
    }
}
