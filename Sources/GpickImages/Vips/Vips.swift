import CVips
import CVipsPrefix
import GpickBase
import GpickFormats
import Glibc

/// libvips for the process: started on first use (a library scan that never decodes an image does
/// not pay for it), once, from whichever thread gets there first, and configured for files we did
/// not make.
enum Vips {
    /// Loaders a camera picker needs. Everything else is blocked: less attack surface (a "photo"
    /// that is really a FITS, MAT or vips file never reaches those parsers), and libvips' own
    /// "untrusted" flag blocks the loaders not hardened for hostile input.
    static let allowedLoaders = [
        "VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp", "VipsForeignLoadTiff",
        "VipsForeignLoadHeif", "VipsForeignLoadNsgif", "VipsForeignLoadJxl",
    ]

    // A Swift global's initialiser runs once (swift_once), so concurrent first calls wait for it.
    private static let started: Result<Void, GpickError> = NativeLibraries.starting {
        guard cvips_load() != 0 else {
            let why = dlerror().map { String(cString: $0) }
            return .failure(GpickError(.plugin, "the image library libvips is not installed (Debian package libvips42)", detail: why))
        }
        // libvips loads every module in its folder as it starts: ImageMagick's, poppler's and
        // OpenSlide's too, with their dozens of libraries (5.5 MiB of a thumbnail run's memory),
        // whose loaders gpick blocks anyway. Asked for its module folder before it starts, under
        // gpick's own prefix (/dev/null, set as the process loaded: see CVipsPrefix), it keeps
        // that answer and finds no module there. The modules of the loaders gpick allows are
        // loaded by name, from the folder beside the libvips that was loaded, when a file first
        // needs one (`Module.needed(byHead:)`). gpick changes no environment variable here;
        // libvips itself sets VIPSHOME to the prefix it finds when none is set (as it does in
        // every program), which is why a VIPSHOME says nothing about who chose it.
        if let variable = prefixVariable { _ = cvips_guess_libdir("gpick", variable) }
        let status = cvips_init("gpick")
        guard status == 0 else {
            let detail = takeErrorText()
            return .failure(GpickError(.runtime, "the image library (libvips) failed to start", detail: detail))
        }
        // Each thumbnail is made once: the operation cache would only hold decoded pixels and
        // open files for nothing.
        cvips_cache_set_max(0)
        cvips_cache_set_max_mem(0)
        cvips_cache_set_max_files(0)
        cvips_block_untrusted_set(1)
        cvips_operation_block_set("VipsForeignLoad", 1)
        for loader in allowedLoaders { cvips_operation_block_set(loader, 0) }
        // Decoders' complaints ("Premature end of JPEG file") are printed by GLib on stderr; what
        // matters of them reaches us as an error, through `fail_on`.
        g_log_set_handler("VIPS", GLogLevelFlags(rawValue: G_LOG_LEVEL_WARNING.rawValue | G_LOG_LEVEL_MESSAGE.rawValue
                                                  | G_LOG_LEVEL_INFO.rawValue | G_LOG_LEVEL_DEBUG.rawValue),
                          { _, _, _, _ in }, nil)
        return .success(())
    }

    /// The variable holding gpick's prefix for libvips; nil when it could not be set, and
    /// libvips loads its modules itself.
    private static let prefixVariable = gpick_vips_prefix_variable().map { String(cString: $0) }
    /// gpick picks libvips' modules itself, unless libvips does.
    private static var choosesModules: Bool { prefixVariable != nil }

    /// The modules that hold allowed loaders: HEIF and AVIF through libheif, JPEG XL through
    /// libjxl. Each is loaded the first time a file needs it: their libraries (libheif's codecs,
    /// libjxl's) were some 8 ms of the 68 ms a JPEG's `inspect` takes. One that is missing is no
    /// error: libvips built without modules has them inside, and a loader that is absent either
    /// way is reported for the file that needs it.
    enum Module: String, CaseIterable {
        case heif = "vips-heif"
        case jxl = "vips-jxl"

        /// The modules whose loaders could take a file that starts with `head` (its first 12
        /// bytes, or all of a shorter file), by what those loaders' own checks look for: for
        /// HEIF and AVIF an ISO "ftyp" box at byte 4 (libvips then checks the brand in it), for
        /// JPEG XL its codestream's or its container's signature.
        static func needed(byHead head: some Collection<UInt8>) -> [Module] {
            let b = Array(head.prefix(12))
            var modules: [Module] = []
            if b.count >= 8, b[4..<8].elementsEqual("ftyp".utf8) { modules.append(.heif) }
            if b.starts(with: [0xFF, 0x0A]) || b.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { modules.append(.jxl) }
            return modules
        }
    }

    private static let moduleFolder: String? = {
        guard let file = cvips_library_file().map({ String(cString: $0) }), let slash = file.lastIndex(of: "/") else { return nil }
        return file[..<slash] + "/vips-modules-\(cvips_version(0)).\(cvips_version(1))"
    }()

    // Each loaded once, under the native libraries' lock (a module registers GLib types).
    private static let heifLoaded: Void = load(.heif)
    private static let jxlLoaded: Void = load(.jxl)

    private static func load(_ module: Module) {
        guard choosesModules, let folder = moduleFolder else { return }
        NativeLibraries.starting { _ = cvips_load_module(folder + "/" + module.rawValue + ".so") }
    }

    /// Makes sure the loaders that a file starting with `head` may need are there. Blocking
    /// (module loading); libvips has started.
    static func loadModules(forHead head: some Collection<UInt8>) {
        for module in Module.needed(byHead: head) {
            switch module {
            case .heif: _ = heifLoaded
            case .jxl: _ = jxlLoaded
            }
        }
    }

    /// A libvips source over memory, the module its loader needs loaded first.
    static func source(memory bytes: UnsafeRawBufferPointer, name: String) throws(GpickError) -> UnsafeMutablePointer<VipsSource> {
        try start()
        loadModules(forHead: bytes.prefix(12))
        return try check(cvips_source_new_from_memory(bytes.baseAddress, bytes.count), "cannot read", subject: name)
    }

    /// A libvips source over a descriptor we opened, the module its loader needs loaded first:
    /// the file's first bytes are read where they are, its offset left alone. What cannot be
    /// read that way (a pipe) may need any module.
    static func source(descriptor fd: Int32, name: String) throws(GpickError) -> UnsafeMutablePointer<VipsSource> {
        try start()
        var head = [UInt8](repeating: 0, count: 12)
        let count = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        if count >= 0 {
            loadModules(forHead: head.prefix(count))
        } else {
            _ = (heifLoaded, jxlLoaded)
        }
        return try check(cvips_source_new_from_descriptor(fd), "cannot read", subject: name)
    }

    /// Starts libvips if nobody has yet. Blocking (module loading): call it off the cooperative pool.
    static func start() throws(GpickError) {
        try started.get()
    }

    /// The funnel every failing libvips call goes through: `status` is the C call's result
    /// (non-zero is failure). The error names `subject` (a file, "the thumbnail") and says what
    /// went wrong in the user's terms; libvips' own text goes to `detail`, never into the line.
    static func check(_ status: Int32, _ what: @autoclosure () -> String, subject: @autoclosure () -> String,
                      kind: GpickError.Kind = .input) throws(GpickError) {
        guard status != 0 else { return }
        throw failure(what(), subject: subject(), kind: kind)
    }

    /// The same for calls that return a pointer (nil is failure).
    static func check<T>(_ result: T?, _ what: @autoclosure () -> String, subject: @autoclosure () -> String,
                         kind: GpickError.Kind = .input) throws(GpickError) -> T {
        guard let result else { throw failure(what(), subject: subject(), kind: kind) }
        return result
    }

    /// Reads and clears libvips' error buffer, and words it: "cannot read X: the file is truncated".
    /// While a file is being read (`reading`), its reason is the file's own (`StillDamage`):
    /// the buffer is one for the process, and with other threads decoding, what it holds may be
    /// theirs, or empty.
    static func failure(_ what: String, subject: String, kind: GpickError.Kind = .input) -> GpickError {
        let detail = takeErrorText()
        var said = reason(detail)
        if kind == .input, let file = reading, said != notAFormat { said = StillDamage.reason(file, said: said) }
        return GpickError(kind, "\(what) \(subject): \(said)", detail: detail)
    }

    /// The file this thread has libvips read, for `failure` to word against.
    @TaskLocal static var reading: (any ByteSource)?

    /// Runs `body` with `file` as what this thread reads.
    static func reading<T>(_ file: any ByteSource, _ body: () throws(GpickError) -> T) throws(GpickError) -> T {
        do {
            return try $reading.withValue(file) { try body() }
        } catch let e as GpickError {
            throw e
        } catch {
            throw GpickError(.runtime, "\(error)")
        }
    }

    static let notAFormat = "not an image format gpick reads"
    static let outOfMemory = "not enough memory to decode it"

    /// libvips' error buffer, taken and cleared in one call (it is shared by every thread).
    @discardableResult
    static func takeErrorText() -> String {
        guard let text = cvips_error_buffer_copy() else { return "" }
        defer { g_free(text) }
        return String(cString: text).trimmed()
    }

    /// What a loader's message means for the user. The buffer holds one line per layer
    /// ("VipsJpeg: Premature end of input file", "VipsForeignLoad: … is not a known file format").
    static func reason(_ detail: String) -> String {
        let text = detail.lowercased()
        let rules: [([String], String)] = [
            (["not a known", "unknown file format", "not in a known format"], notAFormat),
            (["operation is blocked", "is blocked"], notAFormat),
            (["premature end", "truncated", "out of data", "unexpected end", "read error", "end of file",
              "not enough data", "unable to read"], "the file is truncated or damaged"),
            (["crc", "corrupt", "invalid", "bad ", "huffman", "not a jpeg", "decompress", "incorrect"],
             "the file is damaged"),
            (["out of memory", "memory"], outOfMemory),
        ]
        for (needles, meaning) in rules where needles.contains(where: text.contains) { return meaning }
        return "it could not be decoded"
    }
}
