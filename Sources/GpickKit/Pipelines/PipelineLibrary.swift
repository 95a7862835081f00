import FoundationEssentials
import GstCore
import Glibc

/// Finds pipeline files by name: `--pipelines DIR`, then `$GPICK_PIPELINES`, then the installed
/// share directory, then the `pipelines/` folder of a source checkout the binary was built in,
/// and last the files gpick ships, built into the library (`BuiltInPipelines`): a program that
/// depends on GpickKit runs from anywhere.
public struct PipelineLibrary: Sendable {
    public let directories: [String]

    /// `environment`: where to read GPICK_PIPELINES (the process environment when nil).
    public init(override: String? = nil, environment: [String: String]? = nil) {
        var dirs: [String] = []
        if let override { dirs.append(override) }
        let variable = environment.map { $0["GPICK_PIPELINES"] } ?? getenv("GPICK_PIPELINES").map { String(cString: $0) }
        if let env = variable, !env.isEmpty {
            dirs += env.split(separator: ":").map(String.init)
        }
        // The executable's real location (argv[0] may be a bare name found on PATH).
        let exeDir = Self.executablePath.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        func up(_ n: Int, _ tail: String) -> String { (exeDir.dropLast(n) + [Substring(tail)]).joined(separator: "/") }
        // Installed: PREFIX/bin/gpick → PREFIX/share/gpick/pipelines.
        dirs.append(up(1, "share/gpick/pipelines"))
        // Built in a checkout: REPO/.build/<config>/gpick (or .build/<triple>/<config>/) → REPO/pipelines.
        // Never above the root: that would leave a relative path, found against the working folder.
        for n in 1...4 where exeDir.count > n { dirs.append(up(n, "pipelines")) }
        dirs.append("/usr/local/share/gpick/pipelines")
        dirs.append("/usr/share/gpick/pipelines")
        self.directories = dirs
    }

    private static let executablePath: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 { return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().path
    }()

    /// Path of a file given as a path or a name (`record-mp4` → DIR/record-mp4.yaml).
    public func path(for nameOrPath: String) -> String? {
        let fm = FileManager.default
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".yaml") || nameOrPath.hasSuffix(".yml") {
            return fm.fileExists(atPath: nameOrPath) ? nameOrPath : nil
        }
        for d in directories {
            for ext in ["yaml", "yml"] {
                let p = "\(d)/\(nameOrPath).\(ext)"
                if fm.fileExists(atPath: p) { return p }
            }
        }
        return nil
    }

    /// The test patterns the source-test file offers (nil when it cannot be read).
    public var testPatterns: [String]? {
        guard let f = try? load("source-test"), case .enumeration(let c)? = f.parameter("pattern")?.type else { return nil }
        return c
    }

    public func load(_ nameOrPath: String) throws(GpickError) -> PipelineFile {
        if let p = path(for: nameOrPath) { return try Self.cache.load(p) }
        if let builtIn = BuiltInPipelines.file(named: nameOrPath) { return try builtIn.get() }
        let hint = Suggest.closest(to: nameOrPath, in: names()).map { " (did you mean \"\($0)\"?)" } ?? ""
        let searched = existingDirectories + ["gpick's built-in files"]
        throw GpickError(.input, "no pipeline file \"\(nameOrPath)\"\(hint); searched \(searched.joined(separator: ", "))")
    }

    /// Parsed files by path, checked against the file's modification time so an edited file is
    /// read again (a long session may outlive an edit).
    static let cache = FileCache()

    final class FileCache: Sendable {
        private let entries = Locked<[String: (Stamp, PipelineFile)]>([:])

        /// What identifies a version of a file: a plain stat (FileManager's attributes would also
        /// look up the owner's name through NSS).
        struct Stamp: Equatable {
            var seconds = 0, nanoseconds = 0, size = 0, inode: UInt = 0
            init?(_ path: String) {
                guard let st = fileStatus(path) else { return nil }
                seconds = st.st_mtim.tv_sec; nanoseconds = st.st_mtim.tv_nsec; size = st.st_size; inode = st.st_ino
            }
        }

        func load(_ path: String) throws(GpickError) -> PipelineFile {
            let stamp = Stamp(path)
            if let stamp, let (t, f) = entries.withLock({ $0[path] }), t == stamp { return f }
            let f = try PipelineLoader.load(path: path)
            if let stamp { entries.withLock { $0[path] = (stamp, f) } }
            return f
        }
    }

    var existingDirectories: [String] {
        var seen = Set<String>()
        return directories.filter { FileManager.default.fileExists(atPath: $0) && seen.insert(URL(fileURLWithPath: $0).standardized.path).inserted }
    }

    /// Names of the files available, the first directory winning for duplicates, then the
    /// built-in files no directory has.
    public func names() -> [String] {
        var seen = Set<String>(), out: [String] = []
        for d in existingDirectories {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: d)) ?? []
            for f in files.sorted() where f.hasSuffix(".yaml") || f.hasSuffix(".yml") {
                let n = f.deletingFilenameExtension
                if seen.insert(n).inserted { out.append(n) }
            }
        }
        return out + BuiltInPipelines.names.filter { seen.insert($0).inserted }
    }
}
