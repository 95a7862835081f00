import Foundation
import GpickBase
import GpickFormats

/// Turns a found file into an index row: reads its headers (never the whole file) and decides
/// kind and the subtypes that one file shows by itself. Pairs and bursts, which need other
/// files, are the linker's (`AssetLinker`).
enum AssetReader {
    static func read(_ file: FoundFile, now: Int64) -> Asset {
        let ext = (file.path as NSString).pathExtension.lowercased()
        let guessedVideo = FileWalker.videoExtensions.contains(ext)
        let mtime = file.mtimeNs / 1_000_000_000
        // Arrival: birth time where the file system keeps it, else mtime; never in the future.
        let added = min(file.birth > 0 ? file.birth : mtime, now)
        var asset = Asset(
            id: nil, path: file.path, root: file.root, device: file.device, inode: file.inode, size: file.size,
            mtimeNs: file.mtimeNs, kind: guessedVideo ? .video : .photo, mimeType: mimeType(forExtension: ext),
            width: nil, height: nil, orientation: nil, duration: nil, takenAt: mtime, addedAt: added)
        let meta: MediaMetadata
        do {
            meta = try MetadataReader.read(path: file.path)
        } catch {
            asset.unreadable = reason(error, path: file.path)
            return asset
        }
        asset.kind = meta.isVideo ? .video : .photo
        asset.mimeType = meta.mimeType
        // As shown (a HEIF's clean aperture), before orientation.
        asset.width = meta.shownSize?.width
        asset.height = meta.shownSize?.height
        asset.orientation = meta.orientation
        asset.duration = meta.duration
        if let taken = meta.takenAt.flatMap(unixSeconds) { asset.takenAt = taken }
        asset.contentIdentifier = meta.contentIdentifier?.uppercased()
        if let m = meta.motionPhoto, !meta.isVideo {
            asset.motionKind = m.kind.rawValue
            asset.motionVideoOffset = Int64(m.video.offset)
            asset.motionVideoLength = Int64(m.video.length)
            asset.live = true
        }
        if let uuid = meta.burstUUID, !uuid.isEmpty {
            asset.burstKey = "apple:" + uuid.uppercased()
        } else if !meta.isVideo, let stem = numberedStem(file.path) {
            // Bursts are stills: a split recording's NAME-001.mp4, NAME-002.mp4 are videos.
            asset.burstKey = "gpick:" + stem
        }
        if !meta.isVideo {
            asset.pairKey = pairKey(file.path)
            let aspect = asset.displaySize.map { Double(max($0.width, $0.height)) / Double(max(1, min($0.width, $0.height))) }
            asset.panorama = meta.isPanorama || (aspect ?? 0) > 2.0
            asset.screenshot = isScreenshot(name: (file.path as NSString).lastPathComponent, meta: meta)
        }
        return asset
    }

    /// The folder and the name without its extension, lower-cased: what a camera's RAW file and
    /// its JPEG of the same shot share.
    static func pairKey(_ path: String) -> String {
        let ns = path as NSString
        return (ns.deletingPathExtension as String).lowercased()
    }

    /// gpick's bursts are `NAME-001.jpg`, `NAME-002.jpg`…: three or more digits after a dash.
    /// The stem (folder and NAME) is the burst's key; the linker needs two members to call it one.
    static func numberedStem(_ path: String) -> String? {
        let ns = path as NSString
        let base = (ns.lastPathComponent as NSString).deletingPathExtension
        guard let dash = base.lastIndex(of: "-") else { return nil }
        let digits = base[base.index(after: dash)...]
        guard digits.count >= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }), dash != base.startIndex else { return nil }
        return ns.deletingLastPathComponent + "/" + base[..<dash] + "." + ns.pathExtension.lowercased()
    }

    /// Screenshots, as the tools that take them mark them: file names (GNOME, KDE Spectacle,
    /// Android, macOS), iOS's EXIF UserComment, and PNG Software text.
    static func isScreenshot(name: String, meta: MediaMetadata) -> Bool {
        let lower = name.lowercased()
        let prefixes = ["screenshot", "screen shot", "screen_shot", "bildschirmfoto", "capture d’écran", "capture d'écran", "スクリーンショット"]
        if prefixes.contains(where: { lower.hasPrefix($0) }) { return true }
        if meta.userComment?.trimmingCharacters(in: .whitespaces).lowercased() == "screenshot" { return true }
        if let sw = meta.software?.lowercased(), sw.contains("screenshot") || sw.contains("spectacle") || sw.contains("flameshot") { return true }
        return false
    }

    static func unixSeconds(_ d: TakenDate) -> Int64? {
        guard (1...12).contains(d.month), (1...31).contains(d.day), d.year > 1900 else { return nil }
        var t = tm()
        t.tm_year = Int32(d.year - 1900)
        t.tm_mon = Int32(d.month - 1)
        t.tm_mday = Int32(d.day)
        t.tm_hour = Int32(d.hour)
        t.tm_min = Int32(d.minute)
        t.tm_sec = Int32(d.second)
        if let offset = d.offsetSeconds {
            return Int64(timegm(&t)) - Int64(offset)
        }
        t.tm_isdst = -1  // EXIF without an offset is wall time where it was taken: read as local
        let s = mktime(&t)
        return s == -1 ? nil : Int64(s)
    }

    static func mimeType(forExtension ext: String) -> String {
        switch ext {
        case "jpg", "jpeg", "jpe": "image/jpeg"
        case "png": "image/png"
        case "webp": "image/webp"
        case "gif": "image/gif"
        case "heic", "heif": "image/heic"
        case "avif": "image/avif"
        case "tif", "tiff": "image/tiff"
        case "jxl": "image/jxl"
        case "dng": "image/x-adobe-dng"
        case "cr2": "image/x-canon-cr2"
        case "cr3": "image/x-canon-cr3"
        case "nef", "nrw": "image/x-nikon-nef"
        case "arw", "srf", "sr2": "image/x-sony-arw"
        case "raf": "image/x-fuji-raf"
        case "orf": "image/x-olympus-orf"
        case "rw2": "image/x-panasonic-rw2"
        case "pef": "image/x-pentax-pef"
        case "srw": "image/x-samsung-srw"
        case "mp4", "m4v": "video/mp4"
        case "mov", "qt": "video/quicktime"
        case "3gp": "video/3gpp"
        case "mkv": "video/x-matroska"
        case "webm": "video/webm"
        case "avi": "video/x-msvideo"
        default: "application/octet-stream"
        }
    }

    /// The reason without the path, which the row already holds.
    static func reason(_ error: any Error, path: String) -> String {
        var text = (error as? GpickError)?.message ?? "\(error)"
        if text.hasPrefix(path + ": ") { text.removeFirst(path.count + 2) }
        for form in [": \(path)", " \(path):", " \(path)"] where text.contains(form) {
            text = text.replacingOccurrences(of: form, with: "")
        }
        return text.trimmingCharacters(in: CharacterSet(charactersIn: " :"))
    }
}
