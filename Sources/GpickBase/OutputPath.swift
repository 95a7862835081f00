import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A checked place to write one output. Names are literal (`%` stays `%`); the parent directory
/// must exist and be writable; an existing symlink at the name is replaced, never followed.
public struct OutputPath: Sendable, Hashable, CustomStringConvertible {
    public let directory: String
    public let name: String
    public var path: String { directory == "/" ? "/\(name)" : "\(directory)/\(name)" }
    public var description: String { path }

    /// Checks `given` (as typed by the user). With `confinedTo`, the result must stay inside that
    /// directory: no `..` escape, no absolute path elsewhere, no symlinked directory on the way.
    public init(_ given: String, confinedTo root: String? = nil) throws(GpickError) {
        guard !given.isEmpty else { throw GpickError(.usage, "empty output path") }
        guard !given.contains("\0") else { throw GpickError(.usage, "output path contains a NUL byte") }
        var full = given
        if let root {
            guard !given.hasPrefix("/") else { throw GpickError(.usage, "output \"\(given)\" must be relative to the output directory \(root)") }
            let parts = given.split(separator: "/")
            guard !parts.contains("..") else { throw GpickError(.usage, "output \"\(given)\" escapes the output directory \(root)") }
            full = root + "/" + given
        }
        let url = URL(fileURLWithPath: full)
        let name = url.lastPathComponent
        guard !name.isEmpty, name != ".", name != "..", !given.hasSuffix("/") else {
            throw GpickError(.usage, "output \"\(given)\" names a directory, not a file")
        }
        guard name.utf8.count <= 255 else { throw GpickError(.usage, "file name too long: \(name)") }
        let dir = url.deletingLastPathComponent().path
        guard let isDir = isDirectory(dir) else {
            throw GpickError(.output, "output directory does not exist: \(dir)")
        }
        guard isDir else { throw GpickError(.output, "not a directory: \(dir)") }
        if let root {
            // Resolve symlinks on both sides: the real parent must be inside the real root.
            let realRoot = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
            let realDir = URL(fileURLWithPath: dir).resolvingSymlinksInPath().path
            guard realDir == realRoot || realDir.hasPrefix(realRoot + "/") else {
                throw GpickError(.usage, "output \"\(given)\" escapes the output directory \(root) through a symlink")
            }
        }
        guard access(dir, W_OK | X_OK) == 0 else {
            throw errno == EROFS ? GpickError(.output, "read-only file system: cannot write in \(dir)")
                                 : GpickError(.output, "permission denied: cannot write in \(dir)")
        }
        var st = stat()
        if lstat(url.path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            throw GpickError(.output, "\(url.path) is a directory")
        }
        self.directory = dir
        self.name = name
    }

    package init(directory: String, name: String) {
        self.directory = directory
        self.name = name
    }

    /// The same directory with another name (numbered burst files, sidecars).
    public func sibling(_ name: String) -> OutputPath { OutputPath(directory: directory, name: name) }

    /// `shot.jpg` → `shot-007.jpg`: numbered names for bursts, literal (no printf formats).
    public func numbered(_ i: Int, of count: Int) -> OutputPath {
        let digits = max(3, String(count).count)
        let ext = name.filenameExtension
        let stem = name.deletingFilenameExtension
        let num = String(repeating: "0", count: max(0, digits - String(i).count)) + String(i)
        return sibling(ext.isEmpty ? "\(stem)-\(num)" : "\(stem)-\(num).\(ext)")
    }

    /// The parts `numbered` would name that are already in the folder (NAME-001.ext, …, with
    /// three digits or more), by number: what a recording started again goes on after.
    public func existingParts() -> [(number: Int, path: OutputPath)] {
        let ext = name.filenameExtension, stem = name.deletingFilenameExtension
        let suffix = ext.isEmpty ? "" : ".\(ext)"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.compactMap { n -> (Int, OutputPath)? in
            guard n.hasPrefix(stem + "-"), n.hasSuffix(suffix) else { return nil }
            let digits = n.dropFirst(stem.count + 1).dropLast(suffix.count)
            guard digits.count >= 3, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let i = Int(digits) else { return nil }
            return (i, sibling(n))
        }.sorted { $0.0 < $1.0 }
    }

    public var pathExtension: String { name.filenameExtension.lowercased() }
}
