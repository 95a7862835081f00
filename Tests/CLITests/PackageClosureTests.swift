import Foundation
import GpickBase
import GpickKit
import GpickTestSupport
import GstCore
import Testing

/// A new machine has only what `make setup` installs. These checks fail here, on a machine where
/// more is installed by hand, for anything a new machine would lack: every GStreamer element that
/// gpick's pipeline files, sources and tests name, and every program the tests run, must come from
/// a package that setup installs (directly or through Depends) or that Debian marks essential.
@Suite struct PackageClosureTests {
    /// Where something is named: "pipelines/session.yaml" or "Tests/…/X.swift:12".
    struct Use: Hashable, Comparable {
        let name: String
        let place: String
        static func < (a: Use, b: Use) -> Bool { (a.name, a.place) < (b.name, b.place) }
    }

    static let root = TestEnvironment.repoRoot

    static func swiftFiles(under dirs: [String]) -> [String] {
        dirs.flatMap { dir -> [String] in
            var found: [String] = []
            let walk = FileManager.default.enumerator(atPath: "\(root)/\(dir)")
            while let path = walk?.nextObject() as? String {
                // Not into hidden folders: Tests/TSan/.build holds that package's dependencies.
                if (path as NSString).lastPathComponent.hasPrefix(".") { walk?.skipDescendants(); continue }
                if path.hasSuffix(".swift") { found.append("\(dir)/\(path)") }
            }
            return found
        }.sorted()
    }

    /// Elements in use, by how they were found:
    /// - `files`: named by the shipped pipeline files (parsed: every one counts, installed or not);
    /// - `launch`: in gst-launch descriptions written in the Swift sources (installed ones);
    /// - `words`: any word of a string literal in the sources, tests and samples that an installed
    ///   plugin has an element of that name for (broad on purpose: "chromium" and "smpte" are
    ///   elements too, and whatever is installed must come from setup).
    static func elementUses() throws -> (files: [Use], launch: [Use], words: [Use]) {
        var files: [Use] = []
        for name in TestEnvironment.files(in: "\(root)/pipelines") where name.hasSuffix(".yaml") {
            let file = try PipelineLoader.load(path: "\(root)/pipelines/\(name)")
            files += file.elementFactories.map { Use(name: $0, place: "pipelines/\(name)") }
        }
        let registry = Set(Gst.elementFactoryNames())
        var launch = Set<Use>(), words = Set<Use>()
        for path in swiftFiles(under: ["Sources", "Tests", "samples"]) {
            let text = try String(contentsOfFile: "\(root)/\(path)", encoding: .utf8)
            for piece in SwiftLiterals.pieces(in: text) {
                let place = "\(path):\(piece.line)"
                for w in SwiftLiterals.words(piece.text) where registry.contains(w) { words.insert(Use(name: w, place: place)) }
                guard path.hasPrefix("Sources/"), piece.text.contains("!") else { continue }
                for f in LaunchDescription.factories(in: piece.text) where registry.contains(f) { launch.insert(Use(name: f, place: place)) }
            }
        }
        return (files, launch.sorted(), words.sorted())
    }

    /// Programs the tests run: absolute paths in the tests' literals, and the gst-launch-1.0 that
    /// runs the lines `gpick pipelines show` prints (PipelineCLITests runs them under bash).
    static func programUses() throws -> [Use] {
        var uses = Set<Use>()
        for path in swiftFiles(under: ["Tests"]) {
            let text = try String(contentsOfFile: "\(root)/\(path)", encoding: .utf8)
            for piece in SwiftLiterals.pieces(in: text) {
                let t = piece.text
                let isProgram = ["/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/"].contains { t.hasPrefix($0) && t.count > $0.count }
                    && !t.contains(" ")
                if isProgram, FileManager.default.isExecutableFile(atPath: t) || !FileManager.default.fileExists(atPath: t) {
                    uses.insert(Use(name: t, place: "\(path):\(piece.line)"))
                }
            }
        }
        uses.insert(Use(name: "/usr/bin/gst-launch-1.0", place: "Tests/CLITests/PipelineCLITests.swift (pipelines show)"))
        return uses.sorted()
    }

    @Test func everyElementAndProgramComesFromSetup() async throws {
        let setup = try await Packages.setup()
        let closure = try await Packages.closure(of: setup)
        let essential = try await Packages.essential()
        let (files, launch, words) = try await OffPool.run { () throws in try Self.elementUses() }
        var problems: [String] = []

        // Elements: plugin file → package.
        let elements = Dictionary(grouping: files + launch + words, by: \.name)
        // Where to point: a pipeline file or a real use before the package table that lists it.
        func place(_ name: String) -> String {
            let uses = elements[name]!
            return (uses.first { !$0.place.contains("ElementPackages.swift") } ?? uses[0]).place
        }
        var pluginOf: [String: String] = [:]
        for name in elements.keys.sorted() {
            if let file = Gst.pluginFile(ofElement: name) {
                pluginOf[name] = file
            } else {
                let hint = ElementPackages.package(for: name).map { " (ElementPackages says \($0))" } ?? ""
                problems.append("element \(name), named in \(place(name)), is provided by no installed plugin\(hint)")
            }
        }
        let owners = try await Packages.owners(of: Array(Set(pluginOf.values)))
        for (name, file) in pluginOf.sorted(by: { $0.key < $1.key }) {
            let place = place(name)
            guard let package = owners[file] else {
                problems.append("element \(name) (\(place)) comes from \(file), which no Debian package ships")
                continue
            }
            if !closure.contains(package) && !essential.contains(package) {
                problems.append("element \(name) (\(place)) comes from \(package), which make setup does not install (add it to APT_PACKAGES)")
            }
        }

        // Programs.
        let programs = try await OffPool.run { () throws in try Self.programUses() }
        let programOwners = try await Packages.owners(of: Array(Set(programs.map(\.name))))
        for use in Dictionary(grouping: programs, by: \.name).values.map({ $0.sorted()[0] }).sorted() {
            guard let package = programOwners[use.name] else {
                problems.append("program \(use.name) (\(use.place)) is shipped by no installed package")
                continue
            }
            if !closure.contains(package) && !essential.contains(package) {
                problems.append("program \(use.name) (\(use.place)) comes from \(package), which make setup does not install (add it to APT_PACKAGES)")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        // The check covers what it claims to (a scan that found nothing would pass vacuously).
        #expect(Set(elements.keys).isSuperset(of: ["x264enc", "glimagesink", "ximagesink", "textoverlay", "appsrc"]))
        #expect(Set(programs.map(\.name)).isSuperset(of: ["/usr/bin/Xvfb", "/usr/bin/ffprobe", "/usr/bin/exiftool", "/usr/bin/chromium"]))
    }

    /// ElementPackages (what doctor and the missing-plugin errors name) matches dpkg for every
    /// element gpick builds (pipeline files and descriptions in its sources) and every element it
    /// lists.
    @Test func elementPackagesAgreesWithDpkg() async throws {
        let (files, launch, _) = try await OffPool.run { () throws in try Self.elementUses() }
        let names = Set((files + launch).map(\.name)).union(ElementPackages.elements)
        var pluginOf: [String: String] = [:]
        for n in names { if let f = Gst.pluginFile(ofElement: n) { pluginOf[n] = f } }
        let owners = try await Packages.owners(of: Array(Set(pluginOf.values)))
        var problems: [String] = []
        for n in names.sorted() {
            let listed = ElementPackages.package(for: n)
            guard let file = pluginOf[n], let actual = owners[file] else {
                problems.append("\(n): not installed here, so ElementPackages' \(listed ?? "missing entry") cannot be checked")
                continue
            }
            if listed != actual { problems.append("\(n): ElementPackages says \(listed ?? "nothing"), dpkg says \(actual)") }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// The package named for a format no installed plugin reads does have a reader of it: a
    /// demuxer or decoder autoplugging would pick.
    @Test func readerPackagesAgreeWithDpkg() async throws {
        var files: [String: [String]] = [:]
        var problems: [String] = []
        for (mediaType, _) in ElementPackages.readers {
            files[mediaType] = Gst.readers(of: mediaType).compactMap(Gst.pluginFile(ofElement:))
            if files[mediaType]!.isEmpty { problems.append("\(mediaType): no installed demuxer or decoder reads it") }
        }
        let owners = try await Packages.owners(of: Array(Set(files.values.flatMap { $0 })))
        for (mediaType, listed) in ElementPackages.readers {
            let packages = Set((files[mediaType] ?? []).compactMap { owners[$0] })
            if !packages.isEmpty, !packages.contains(listed) {
                problems.append("\(mediaType): ElementPackages says \(listed), but its readers are in \(packages.sorted())")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
