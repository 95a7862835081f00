import Foundation

/// What Debian says about the packages gpick needs: what `make setup` installs, what that pulls in
/// through Depends (Recommends do not count: setup uses --no-install-recommends), and which
/// package ships a file.
public enum Packages {
    /// The Makefile's APT_PACKAGES.
    public static func setup() async throws -> [String] {
        let r = try await Subprocess.run("/usr/bin/make", ["-s", "--no-print-directory", "-C", TestEnvironment.repoRoot, "apt-packages"])
        guard r.status == 0 else { throw TestFailure("make apt-packages: \(r.stderr)") }
        return r.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// `packages` and everything they depend on (Depends and Pre-Depends, recursively).
    public static func closure(of packages: [String]) async throws -> Set<String> {
        // A second of one core alone; two whole suites sharing the machine's two cores once
        // stretched it past a minute (it is one thread among dozens). Only a hang fails it.
        let r = try await Subprocess.run("/usr/bin/apt-cache", ["depends", "--recurse", "--no-recommends", "--no-suggests",
                                                                "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances"] + packages,
                                         timeout: 300)
        guard r.status == 0 else { throw TestFailure("apt-cache depends: \(r.stderr)") }
        // Package headers start a line; dependencies are indented; virtual packages are <name>.
        return Set(r.stdoutLines.filter { !$0.hasPrefix(" ") && !$0.hasPrefix("<") }
            .map { String($0.split(separator: ":").first ?? "") }).union(packages)
    }

    /// Essential packages: Debian guarantees them on every system.
    public static func essential() async throws -> Set<String> {
        let r = try await Subprocess.run("/usr/bin/dpkg-query", ["-W", "-f", "${Package} ${Essential}\n"])
        return Set(r.stdoutLines.compactMap { l in
            let p = l.split(separator: " ")
            return p.count == 2 && p[1] == "yes" ? String(p[0]) : nil
        })
    }

    /// The package that ships each file. A file is asked for as given, resolved through symlinks
    /// (alternatives), and in its other /usr-merged spelling (/bin/mount is shipped as /bin/mount,
    /// /usr/bin/readelf as a link to an arch-specific name).
    public static func owners(of files: [String]) async throws -> [String: String] {
        var spellings: [String: [String]] = [:]
        for f in files {
            var s = [f, URL(fileURLWithPath: f).resolvingSymlinksInPath().path]
            for (a, b) in [("/usr/bin/", "/bin/"), ("/usr/sbin/", "/sbin/"), ("/usr/lib/", "/lib/")] {
                if f.hasPrefix(a) { s.append(b + f.dropFirst(a.count)) }
                if f.hasPrefix(b) { s.append(a + f.dropFirst(b.count)) }
            }
            spellings[f] = s
        }
        let all = Array(Set(spellings.values.flatMap { $0 }))
        // dpkg -S prints "pkg[:arch][, pkg2]: /path" for each path it knows, and fails for the rest.
        let r = try await Subprocess.run("/usr/bin/dpkg", ["-S"] + all)
        var byPath: [String: String] = [:]
        for line in r.stdoutLines {
            guard let sep = line.range(of: ": /") else { continue }
            let package = line[..<sep.lowerBound].split(separator: ",").first.map { String($0.split(separator: ":")[0]).trimmingCharacters(in: .whitespaces) }
            byPath[String(line[line.index(after: sep.lowerBound)...]).trimmingCharacters(in: .whitespaces)] = package
        }
        var out: [String: String] = [:]
        for (f, s) in spellings { if let p = s.lazy.compactMap({ byPath[$0] }).first { out[f] = p } }
        return out
    }
}
