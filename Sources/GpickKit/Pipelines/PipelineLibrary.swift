import FoundationEssentials
import GstCore
import Glibc

/// Finds pipeline files by name: `--pipelines DIR`, then `$GPICK_PIPELINES`, then the installed
/// share directory, then the `pipelines/` folder of a source checkout the binary was built in.
public struct PipelineLibrary: Sendable {
    public let directories: [String]

    public init(override: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        var dirs: [String] = []
        if let override { dirs.append(override) }
        if let env = environment["GPICK_PIPELINES"], !env.isEmpty {
            dirs += env.split(separator: ":").map(String.init)
        }
        let exe = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let exeDir = exe.deletingLastPathComponent()
        // Installed: PREFIX/bin/gpick → PREFIX/share/gpick/pipelines.
        dirs.append(exeDir.deletingLastPathComponent().appendingPathComponent("share/gpick/pipelines").path)
        // Built in a checkout: REPO/.build/<config>/gpick (or .build/<triple>/<config>/) → REPO/pipelines.
        var dir = exeDir
        for _ in 0..<4 {
            dir = dir.deletingLastPathComponent()
            dirs.append(dir.appendingPathComponent("pipelines").path)
        }
        dirs.append("/usr/local/share/gpick/pipelines")
        dirs.append("/usr/share/gpick/pipelines")
        self.directories = dirs
    }

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

    public func load(_ nameOrPath: String) throws(GpickError) -> PipelineFile {
        guard let p = path(for: nameOrPath) else {
            let hint = Suggest.closest(to: nameOrPath, in: names()).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw GpickError(.input, "no pipeline file \"\(nameOrPath)\"\(hint); searched \(existingDirectories.joined(separator: ", "))")
        }
        return try Self.cache.load(p)
    }

    /// Parsed files by path, checked against the file's modification time so an edited file is
    /// read again (a long session may outlive an edit).
    static let cache = FileCache()

    final class FileCache: @unchecked Sendable {
        // Invariant: `entries` only touched under `lock`.
        private let lock = Lock()
        private var entries: [String: (Date, PipelineFile)] = [:]

        func load(_ path: String) throws(GpickError) -> PipelineFile {
            let mtime = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
            if let (t, f) = lock.withLock({ entries[path] }), t == mtime { return f }
            let f = try PipelineLoader.load(path: path)
            lock.withLock { entries[path] = (mtime, f) }
            return f
        }
    }

    var existingDirectories: [String] {
        var seen = Set<String>()
        return directories.filter { FileManager.default.fileExists(atPath: $0) && seen.insert(URL(fileURLWithPath: $0).standardized.path).inserted }
    }

    /// Names of the files available, the first directory winning for duplicates.
    public func names() -> [String] {
        var seen = Set<String>(), out: [String] = []
        for d in existingDirectories {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: d)) ?? []
            for f in files.sorted() where f.hasSuffix(".yaml") || f.hasSuffix(".yml") {
                let n = f.deletingFilenameExtension
                if seen.insert(n).inserted { out.append(n) }
            }
        }
        return out
    }
}
