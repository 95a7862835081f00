import FoundationEssentials
import Glibc
import GpickBase

/// Motion clips' file names: `%t` the local time of the first moving frame, `%n` the clip's
/// number in this run, `%%` a percent sign; everything else literal.
enum ClipNames {
    /// Refuses a pattern that could not name a file in the clips' folder.
    static func check(_ pattern: String) throws(GpickError) {
        guard !pattern.isEmpty, !pattern.contains("/"), !pattern.contains("\0"), pattern != ".", pattern != ".." else {
            throw GpickError(.usage, "clip name \"\(pattern)\" must be a file name, without a folder")
        }
        try checkPercents(pattern)
    }

    static func checkPercents(_ pattern: String) throws(GpickError) {
        var chars = pattern.makeIterator()
        while let c = chars.next() {
            guard c == "%" else { continue }
            guard let f = chars.next(), "tn%".contains(f) else {
                throw GpickError(.usage, "name \"\(pattern)\": only %t (time), %n (number) and %% may follow a percent sign")
            }
        }
    }

    static func expand(_ pattern: String, number: Int, at date: Date) -> String {
        var out = ""
        var chars = pattern.makeIterator()
        while let c = chars.next() {
            guard c == "%", let f = chars.next() else { out.append(c); continue }
            switch f {
            case "t": out += stamp(date)
            case "n": out += String(number)
            default: out.append(f)
            }
        }
        return out
    }

    /// 2026-11-29_14-05-30, local time (no colon: the name works on every file system).
    static func stamp(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var f = tm()
        localtime_r(&t, &f)
        return cFormat("%04d-%02d-%02d_%02d-%02d-%02d", f.tm_year + 1900, f.tm_mon + 1, f.tm_mday, f.tm_hour, f.tm_min, f.tm_sec)
    }

    /// Creates the clip's file, never over another: `name`, else `name-2`, `name-3`… (before the
    /// extension). The descriptor is the caller's to close.
    static func create(in directory: String, name: String) throws(GpickError) -> (fd: Int32, path: String) {
        let ext = name.filenameExtension, stem = name.deletingFilenameExtension
        for n in 1...10_000 {
            let candidate = n == 1 ? name : (ext.isEmpty ? "\(stem)-\(n)" : "\(stem)-\(n).\(ext)")
            let path = "\(directory)/\(candidate)"
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 { return (fd, path) }
            let e = errno
            guard e == EEXIST else {
                switch e {
                case ENOSPC: throw GpickError(.output, "no space left on device writing \(directory) (motion clip)")
                case EACCES, EPERM: throw GpickError(.output, "permission denied: cannot write in \(directory)")
                case ENOENT: throw GpickError(.output, "output directory does not exist: \(directory)")
                default: throw GpickError(.output, "cannot create \(path): \(String(cString: strerror(e)))")
                }
            }
        }
        throw GpickError(.output, "cannot create a clip named \(name) in \(directory): every numbered name is taken")
    }
}

extension ClipNames {
    /// Whether `name` is one `pattern` gives (`%t` a time stamp, `%n` a number, and the `-2`, `-3`
    /// a taken name gets): the clips an earlier run left, which retention counts too.
    static func matches(_ name: String, pattern: String) -> Bool {
        let ext = pattern.filenameExtension
        let full = Array(pattern.deletingFilenameExtension)
        guard ext.isEmpty || name.hasSuffix(".\(ext)") else { return false }
        let stem = Array(ext.isEmpty ? name : String(name.dropLast(ext.count + 1)))
        return match(stem[...], full[...]) || {
            // NAME-2: a taken name's number, after what the pattern gives.
            guard let dash = stem.lastIndex(of: "-"), dash + 1 < stem.count, stem[(dash + 1)...].allSatisfy(\.isNumber) else { return false }
            return match(stem[..<dash], full[...])
        }()
    }

    private static func match(_ s: ArraySlice<Character>, _ p: ArraySlice<Character>) -> Bool {
        guard let c = p.first else { return s.isEmpty }
        guard c == "%", p.count >= 2 else { return s.first == c && match(s.dropFirst(), p.dropFirst()) }
        let f = p[p.startIndex + 1], rest = p.dropFirst(2)
        switch f {
        case "t":
            let width = 19  // 2026-11-29_14-05-30
            guard s.count >= width, s.prefix(width).allSatisfy({ $0.isNumber || $0 == "-" || $0 == "_" }) else { return false }
            return match(s.dropFirst(width), rest)
        case "n":
            var i = s.startIndex
            while i < s.endIndex, s[i].isNumber {
                i += 1
                if match(s[i...], rest) { return true }
            }
            return false
        default:
            return s.first == f && match(s.dropFirst(), rest)
        }
    }

    /// The clips in `directory` that `pattern` names, oldest first (by modification time).
    static func existing(in directory: String, pattern: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.filter { matches($0, pattern: pattern) }
            .compactMap { name -> (String, Int)? in fileStatus("\(directory)/\(name)").map { ("\(directory)/\(name)", $0.st_mtim.tv_sec) } }
            .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
            .map(\.0)
    }
}
