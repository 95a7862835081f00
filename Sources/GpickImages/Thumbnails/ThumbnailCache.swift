import GpickBase
import FoundationEssentials
import Glibc

/// The freedesktop.org thumbnail cache (Thumbnail Managing Standard), shared with file managers:
/// `BASE/{normal,large,x-large,xx-large}/MD5(URI).png`, with the original's URI and mtime in the
/// PNG's text chunks, and `BASE/fail/gpick-VERSION/` for files that could not be thumbnailed.
///
/// A thumbnail another program made is used as it is when its URI, MTime (and Size, when present)
/// match the file. Decodes run a core's worth at a time, off Swift's cooperative pool.
public struct ThumbnailCache: Sendable {
    public enum Size: String, CaseIterable, Sendable {
        case normal, large, xLarge = "x-large", xxLarge = "xx-large"

        /// The longest side a thumbnail of this size may have.
        public var pixels: Int {
            switch self {
            case .normal: 128
            case .large: 256
            case .xLarge: 512
            case .xxLarge: 1024
            }
        }
    }

    /// The cache's root, `$XDG_CACHE_HOME/thumbnails` by default.
    public let base: String
    /// What made a thumbnail: "gpick" and its version name the fail directory, and both go in the
    /// `Software` key.
    public let program: String
    public let version: String
    public var limits: DecodeLimits
    /// How long one video may take to give a frame.
    public var videoTimeout: Double

    public var software: String { "\(program) \(version)" }
    public var failDirectory: String { "\(base)/fail/\(program)-\(version)" }

    public init(base: String? = nil, program: String = "gpick", version: String,
                limits: DecodeLimits = DecodeLimits(), videoTimeout: Double = 10) {
        self.base = ThumbnailName.canonicalPath(base ?? Self.defaultBase())
        self.program = program
        self.version = version
        self.limits = limits
        self.videoTimeout = videoTimeout
    }

    /// `$XDG_CACHE_HOME/thumbnails`, or `~/.cache/thumbnails` when it is unset, empty or relative
    /// (the XDG base directory spec says to ignore a relative value).
    public static func defaultBase() -> String {
        if let xdg = getenv("XDG_CACHE_HOME").map({ String(cString: $0) }), xdg.hasPrefix("/") {
            return "\(xdg)/thumbnails"
        }
        var home = getenv("HOME").map { String(cString: $0) } ?? ""
        if home.isEmpty, let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir { home = String(cString: dir) }
        return "\(home)/.cache/thumbnails"
    }

    /// Where the thumbnail of `file` at `size` is (or would be).
    public func path(for file: String, size: Size) -> String {
        "\(base)/\(size.rawValue)/\(Subject(file).name)"
    }

    /// Where gpick records that `file` could not be thumbnailed.
    public func failPath(for file: String) -> String {
        "\(failDirectory)/\(Subject(file).name)"
    }

    /// The thumbnail of `file` when a valid one is already there (made by anyone), else nil. It
    /// decodes nothing; it reads the file's status and the thumbnail's text chunks (through
    /// libvips, started then, when another program compressed them).
    public func existing(for file: String, size: Size) -> String? {
        existing(for: file, sizes: [size])?.path
    }

    /// The PNG of a valid thumbnail of `file` at `size` already there, else nil; like `existing`,
    /// it decodes nothing, and the file is read once.
    public func existingPNG(for file: String, size: Size) -> [UInt8]? {
        let subject = Subject(file)
        guard !isInsideCache(subject.path), let stamp = try? Stamp(readable: subject.path) else { return nil }
        return ThumbnailFile.valid("\(base)/\(size.rawValue)/\(subject.name)", uri: subject.uri, stamp: stamp)
    }

    /// The first of `sizes` with a valid thumbnail of `file`, and its path. The file is looked at
    /// once for all of them (a stand-in for a picker's cell asks about every size).
    public func existing(for file: String, sizes: [Size]) -> (size: Size, path: String)? {
        let subject = Subject(file)
        guard !isInsideCache(subject.path), let stamp = try? Stamp(readable: subject.path) else { return nil }
        for size in sizes {
            let path = "\(base)/\(size.rawValue)/\(subject.name)"
            if ThumbnailFile.matches(path, uri: subject.uri, stamp: stamp) { return (size, path) }
        }
        return nil
    }

    /// Starts the image library ahead of the first thumbnail to make (about 150 ms of module
    /// loading here), off the pool: a picker calls it as it opens, so the first photo taken is
    /// not the one that waits for it.
    public func warmUp() async {
        await OffPool.run { _ = try? Vips.start() }
    }

    /// The path of a valid thumbnail of `file`, made now if there is none or it is stale. `mimeType`
    /// `video/*` takes a frame of the video; anything else is decoded as a still image (nil: as
    /// the name suggests). A file that fails is recorded in the fail directory and not tried
    /// again until it changes; the error names the file and the reason in one line.
    public func thumbnail(for file: String, mimeType: String?, size: Size) async throws(GpickError) -> String {
        try await obtain(file, mimeType: mimeType, size: size).path
    }

    /// The same thumbnail's PNG bytes: those just encoded when it is made now (the cache file is
    /// written beside them, never read back), the cache file's when it was there already.
    public func thumbnailPNG(for file: String, mimeType: String?, size: Size) async throws(GpickError) -> [UInt8] {
        let got = try await obtain(file, mimeType: mimeType, size: size)
        if let png = got.png { return png }
        // Made by another request meanwhile (rare): read here.
        return try await OffPool.run { () throws(GpickError) in try FileImageSource.readWhole(got.path, limit: ThumbnailFile.maxBytes) }
    }

    /// The cache file of a valid thumbnail, and its bytes when this call read or made them.
    private func obtain(_ file: String, mimeType: String?, size: Size) async throws(GpickError) -> (path: String, png: [UInt8]?) {
        let subject = Subject(file)
        guard !isInsideCache(subject.path) else {
            throw GpickError(.input, "\(file) is inside the thumbnail cache \(base): thumbnails are not thumbnailed")
        }
        // Reading the file's status is the permission check: nothing of the cache is read or
        // written for a file the user cannot read.
        let stamp = try Stamp(readable: subject.path)
        let path = "\(base)/\(size.rawValue)/\(subject.name)"
        // The quick answer, here on the pool: a stat and a small read. Keys in compressed chunks
        // (which need libvips) are looked at in the job, off the pool.
        if let png = ThumbnailFile.valid(path, uri: subject.uri, stamp: stamp, inflate: false) { return (path, png) }
        if let earlier = ThumbnailFile.failure("\(failDirectory)/\(subject.name)", uri: subject.uri, stamp: stamp) {
            throw GpickError(.input, "\(earlier) (it failed before and has not changed since)")
        }
        let isVideo = mimeType.map { $0.hasPrefix("video/") } ?? MediaKind.looksLikeVideo(subject.path)
        // One making of a thumbnail at a time, shared by whoever asks meanwhile (a page's batch
        // and a cell's retry): no work twice, and one failure, not two at once (libvips keeps one
        // error text for the whole process, and of two failures at once one lost its reason).
        return try await Making.shared.once(path) { () async throws(GpickError) -> (path: String, png: [UInt8]?) in
            try await DecodeGate.shared.run { () async throws(GpickError) -> (path: String, png: [UInt8]?) in
                try await OffPool.run { () throws(GpickError) -> (path: String, png: [UInt8]?) in
                    (path, try make(subject, size: size, path: path, mimeType: mimeType, isVideo: isVideo))
                }
            }
        }.get()
    }

    /// Thumbnails being made, by cache path, in this process.
    private final class Making: Sendable {
        static let shared = Making()
        typealias Outcome = Result<(path: String, png: [UInt8]?), GpickError>
        private struct Job {
            let task: Task<Outcome, Never>
            var waiting: Int
        }
        private let jobs = Locked<[String: Job]>([:])

        /// `work`'s outcome: run once for `key` however many ask while it runs. When every one
        /// who asked has been cancelled (a page that left), the work is cancelled too.
        func once(_ key: String, _ work: @escaping @Sendable () async throws(GpickError) -> (path: String, png: [UInt8]?)) async -> Outcome {
            let task = jobs.withLock { jobs -> Task<Outcome, Never> in
                if var running = jobs[key] {
                    running.waiting += 1
                    jobs[key] = running
                    return running.task
                }
                let task = Task<Outcome, Never> {
                    do throws(GpickError) { return .success(try await work()) } catch { return .failure(error) }
                }
                jobs[key] = Job(task: task, waiting: 1)
                return task
            }
            let outcome = await withTaskCancellationHandler {
                await task.value
            } onCancel: {
                let last = jobs.withLock { jobs -> Bool in
                    guard var job = jobs[key], job.task == task else { return false }
                    job.waiting -= 1
                    jobs[key] = job
                    return job.waiting == 0
                }
                if last { task.cancel() }
            }
            jobs.withLock { jobs in if jobs[key]?.task == task { jobs[key] = nil } }
            return outcome
        }
    }

    /// Decodes, scales and writes one thumbnail (or its failure), and returns its PNG; nil when
    /// another request made it while this one waited for a place. Blocking.
    private func make(_ subject: Subject, size: Size, path: String, mimeType: String?, isVideo: Bool) throws(GpickError) -> [UInt8]? {
        let file = try OpenFile(subject.path)
        let stamp = Stamp(file.status)
        if ThumbnailFile.matches(path, uri: subject.uri, stamp: stamp) { return nil }
        var keys: [(key: String, value: String)] = [
            ("Thumb::URI", subject.uri), ("Thumb::MTime", String(stamp.mtime)), ("Thumb::Size", String(stamp.size)),
        ]
        let png: [UInt8]
        do {
            if isVideo {
                // libvips first (it scales and encodes the poster anyway): its start then never
                // overlaps GStreamer loading its decoders (see NativeLibraries).
                try Vips.start()
                let poster = try VideoFrames.poster(path: subject.path, box: .square(size.pixels), timeout: videoTimeout)
                keys.append(("Thumb::Mimetype", mimeType ?? MediaKind.videoMimeType(subject.path)))
                if let d = poster.duration { keys.append(("Thumb::Movie::Length", String(Int(d.rounded())))) }
                keys.append(("Software", software))
                png = try poster.picture.pngData(text: keys)
            } else {
                let (picture, header) = try StillImage.thumbnail(fd: file.fd, name: subject.path, box: .square(size.pixels), limits: limits)
                if let mime = mimeType ?? header.mimeType { keys.append(("Thumb::Mimetype", mime)) }
                keys += [("Thumb::Image::Width", String(header.width)), ("Thumb::Image::Height", String(header.height)),
                         ("Software", software)]
                png = try picture.pngData(text: keys)
            }
        } catch {
            // The file's own fault (damaged, unsupported, too large): remember it. A missing
            // plugin or a failure of ours is not the file's, and is tried again next time.
            if error.kind == .input {
                try? ThumbnailFile.recordFailure(in: failDirectory, name: subject.name, uri: subject.uri, stamp: stamp,
                                                 software: software, reason: error.message)
            }
            throw error
        }
        try ThumbnailFile.write(png, directory: "\(base)/\(size.rawValue)", name: subject.name)
        return png
    }

    /// Whether `path` is in the cache (by name, and through symlinks): thumbnailing thumbnails
    /// would fill the cache with copies of itself.
    func isInsideCache(_ path: String) -> Bool {
        if path == base || path.hasPrefix(base + "/") { return true }
        guard let realBase = realPath(base), let real = realPath(path) else { return false }
        return real == realBase || real.hasPrefix(realBase + "/")
    }

    private func realPath(_ p: String) -> String? {
        guard let r = realpath(p, nil) else { return nil }
        defer { free(r) }
        return String(cString: r)
    }
}

/// A file as the cache names it.
struct Subject: Sendable {
    let path: String
    let uri: String
    let name: String

    init(_ file: String) {
        path = ThumbnailName.canonicalPath(file)
        uri = ThumbnailName.uri(ofAbsolute: path)
        name = ThumbnailName.fileName(forURI: uri)
    }
}

/// What a thumbnail records of its original: mtime in whole seconds, and size in bytes.
struct Stamp: Sendable, Equatable {
    let mtime: Int64
    let size: Int64

    init(_ st: stat) {
        mtime = Int64(st.st_mtim.tv_sec)
        size = Int64(st.st_size)
    }

    /// The status of a file the user can read (opened, not just stat'ed: permission is what
    /// open says).
    init(readable path: String) throws(GpickError) {
        self.init(try OpenFile(path).status)
    }
}

/// Names and types of video files, for callers that give no MIME type.
enum MediaKind {
    static let videoTypes = [
        "mp4": "video/mp4", "m4v": "video/x-m4v", "mov": "video/quicktime", "qt": "video/quicktime",
        "mkv": "video/x-matroska", "webm": "video/webm", "avi": "video/x-msvideo", "3gp": "video/3gpp",
        "mts": "video/mp2t", "m2ts": "video/mp2t", "ts": "video/mp2t", "ogv": "video/ogg", "mpg": "video/mpeg",
    ]

    static func looksLikeVideo(_ path: String) -> Bool { videoTypes[path.filenameExtension.lowercased()] != nil }
    static func videoMimeType(_ path: String) -> String { videoTypes[path.filenameExtension.lowercased()] ?? "video/mp4" }
}
