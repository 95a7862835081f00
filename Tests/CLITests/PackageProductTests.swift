import Foundation
import GpickBase
import GpickTestSupport
import Testing

/// Other packages can depend on gpick's libraries. SwiftPM refuses a dependency whose targets
/// carry unsafe build flags ("contains unsafe build flags"), so no target that a library product
/// builds may have one. Checked on the manifest as SwiftPM itself reads it (`dump-package`).
@Suite struct PackageProductTests {
    static func manifest() async throws -> [String: Any] {
        let scratch = TestEnvironment.tempDir("dump-package")
        // A scratch path of its own: the test runner holds the lock on the package's .build.
        let r = try await Subprocess.run("/usr/bin/env", ["swift", "package", "--package-path", TestEnvironment.repoRoot,
                                                          "--scratch-path", scratch, "dump-package"], timeout: 120)
        try #require(r.status == 0, "swift package dump-package: \(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    /// The targets a product builds: its own, and those they depend on inside this package.
    static func closure(of names: [String], in targets: [String: [String: Any]]) -> Set<String> {
        var seen = Set<String>(), queue = names
        while let name = queue.popLast() {
            guard seen.insert(name).inserted, let target = targets[name] else { continue }
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                // {"byName": ["X", null]} or {"target": ["X", null]}; products of other packages are theirs.
                for key in ["byName", "target"] { if let inner = (dependency[key] as? [Any])?.first as? String { queue.append(inner) } }
            }
        }
        return seen
    }

    @Test func noTargetOfALibraryProductHasUnsafeFlags() async throws {
        let m = try await Self.manifest()
        let targets = Dictionary(uniqueKeysWithValues: (m["targets"] as? [[String: Any]] ?? []).map { ($0["name"] as? String ?? "", $0) })
        let libraries = (m["products"] as? [[String: Any]] ?? []).filter { ($0["type"] as? [String: Any])?["library"] != nil }
        #expect(Set(libraries.compactMap { $0["name"] as? String }).isSuperset(of: ["GpickKit", "GpickPicker", "GpickAvatar", "GpickLibrary"]))
        for product in libraries {
            for name in Self.closure(of: product["targets"] as? [String] ?? [], in: targets).sorted() {
                let settings = targets[name]?["settings"] as? [[String: Any]] ?? []
                let unsafe = settings.filter { (($0["kind"] as? [String: Any])?["unsafeFlags"]) != nil }
                #expect(unsafe.isEmpty, "product \(product["name"] ?? "?"): target \(name) has unsafe flags: \(unsafe)")
            }
        }
    }

    /// Libraries report typed reasons and the command line owns the flags (GpickError's rule):
    /// no message in a library module names a flag or a gpick command. Remedies and wording
    /// such as `PickerConfiguration.words` carry them in from the command line's side.
    @Test func noLibraryMessageNamesAFlagOrACommand() async throws {
        let libraries = ["GpickBase", "GstCore", "GpickKit", "GpickFormats", "GpickLibrary", "GpickImages", "GpickPicker",
                         "GpickAvatar", "GpickScript"]
        // Every library source through regexes: a second of work in a debug build, off the pool.
        let found = try await OffPool.run { () throws -> [String] in
            var found: [String] = []
            for file in PackageClosureTests.swiftFiles(under: libraries.map { "Sources/\($0)" }) {
                let text = try String(contentsOfFile: TestEnvironment.repoRoot + "/" + file, encoding: .utf8)
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    // Regexes only where they can match: most lines hold no string literal.
                    guard line.contains("\""), !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") else { continue }
                    for literal in line.matches(of: /"(?:[^"\\]|\\.)*"/) {
                        // A flag (--name, not a CSS custom property --name:) or a command to run.
                        if literal.output.contains("--") && literal.output.contains(/(^|[\s(])--[a-z][a-z-]*(?![a-z-]*:)/)
                            || literal.output.contains("`gpick ") {
                            found.append("\(file):\(n + 1): \(literal.output)")
                        }
                    }
                }
            }
            return found
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
