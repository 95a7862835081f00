import Foundation

/// Photos written by phones and cameras (Samsung, Google Pixel, Apple, Nikon, Canon), from
/// public sample repositories, with their provenance and licences in the README beside them. They
/// are not in this repository: the corpus lives at `$GPICK_REAL_FILES`, else in `real-files/`
/// of the shared folder beside the checkout (`../shared/real-files`). Each file is checked against
/// its SHA-256, so a test never runs on a different file under the same name. Without the corpus
/// the tests that need it are skipped, and say so; with it, a file of the manifest that is missing
/// or different fails (`RealFilesTests.theCorpusIsWhole`) rather than being left out unseen.
public enum RealFiles {
    /// Name → SHA-256.
    public static let manifest: [String: String] = [
        "samsung-s22plus-oneui6-motion.heic": "4a604f5f28dee41565f766585ab4b29026e0031389504a0d2152a3b844a7e19c",
        "google-format-motion-synthetic.heic": "9a0d28b943d0446ccc6b3973345149a2b7f251a5fffd45fe9284a878b2a42d24",
        "pixel3axl-motion.MP.jpg": "8d9e5d91b4b1f864f7b6ef816eed1ed46d1dd674e050c4080c146abc6485dd2f",
        "pixel8pro-ultrahdr.jpg": "2377e48d9a9c051a9c50b451258d6d21d161ceec2de89d1ca020b9b924d868d5",
        "iphone8plus-rotated.heic": "73f604d7353df4848505a1f45a5517f736857fe047372f95c2f3d671df92c22c",
        "iphone12pro-photo.avif": "925f59e0b4812b7a1973666d20d0b9bb5268491966fb47b091341df29dc35c0e",
        "nikon-d1x-photo.jxl": "cdf84058e782d4620b0ada0aecf065dfda37080807652e611e3d0d0a14e295da",
        "canon-eos6d-photo.dng": "e5a7adfb8f7fbe43a31e637dab5bc161ed4af2c128f76bc1eb04162373893ecf",
        "canon-eos7d-photo.webp": "4e8ab17e4447e6000c20ea2a00836de4541a960a9ae0fbc07980e9fb4f7415a2",
        "samsung-s24ultra-200mp.heic": "4dd7209010986a50b1049e54de47ae2188faef6d548213a9799e11fae1a317c6",
    ]

    public static let directory = SharedData.folder(env: "GPICK_REAL_FILES", name: "real-files", marker: "README.md")

    /// The names present with the right content.
    public static let verified = SharedData.verified(manifest, in: directory)

    public static var available: Bool { !verified.isEmpty }

    public static func path(_ name: String) -> String { "\(directory ?? "")/\(name)" }

    static func sha256(_ path: String) -> String? { SharedData.sha256(path) }
}

/// Data that lives in the shared folder beside the checkout (`../shared/NAME`), or where an
/// environment variable says: found by a file it holds, each file checked against its SHA-256.
public enum SharedData {
    static func folder(env: String, name: String, marker: String) -> String? {
        let given = ProcessInfo.processInfo.environment[env]
        let beside = URL(fileURLWithPath: TestEnvironment.repoRoot).deletingLastPathComponent().appendingPathComponent("shared/\(name)").path
        return [given, beside].compactMap { $0 }.first { FileManager.default.fileExists(atPath: $0 + "/" + marker) }
    }

    /// The names of `manifest` present in `dir` with the right content, sorted.
    static func verified(_ manifest: [String: String], in dir: String?) -> [String] {
        guard let dir else { return [] }
        return manifest.keys.sorted().filter { sha256("\(dir)/\($0)") == manifest[$0] }
    }

    /// sha256sum's answer (the tests run Debian's tools; no crypto library is linked).
    static func sha256(_ path: String) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let r = try? Spawn.run("/usr/bin/sha256sum", [path], keepStdout: true), r.status == 0 else { return nil }
        return String(decoding: r.stdout, as: UTF8.self).split(separator: " ").first.map(String.init)
    }
}
