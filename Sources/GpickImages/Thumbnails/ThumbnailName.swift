import CVips
import GpickBase

/// How the Thumbnail Managing Standard names a file: its absolute, canonical `file://` URI, and
/// the MD5 of that URI.
enum ThumbnailName {
    /// `path` made absolute (against the working directory) with `.`, `..` and doubled slashes
    /// resolved by name, not through symlinks: what GLib's `g_file_get_uri` gives file managers,
    /// so our thumbnails and theirs share names.
    static func canonicalPath(_ path: String) -> String {
        guard let c = g_canonicalize_filename(path, nil) else { return path }
        defer { g_free(c) }
        return String(cString: c)
    }

    /// The `file://` URI of an absolute path. Bytes outside `A-Za-z0-9 - . _ ~ /` and the
    /// sub-delimiters RFC 3986 allows in a path (`! $ & ' ( ) * + , = : @`) are percent-encoded,
    /// upper-case: exactly GLib's `g_filename_to_uri`, which GNOME's file manager hashes (RFC 3986
    /// requires no more, and more would name "IMG (1).jpg" differently from the file manager).
    static func uri(ofAbsolute path: String) -> String {
        if let u = cvips_filename_to_uri(path) {
            defer { g_free(u) }
            return String(cString: u)
        }
        // Only a relative path fails; canonical paths are absolute.
        return "file://" + path
    }

    /// Lower-case hex MD5 of the URI, plus ".png".
    static func fileName(forURI uri: String) -> String {
        guard let hex = cvips_md5_hex(uri) else { return "invalid.png" }
        defer { g_free(hex) }
        return String(cString: hex) + ".png"
    }
}
