import Foundation
import GpickBase
import GpickImages
import GpickLibrary

/// The images an editor page may show, each named by an id the server gave ("m0" from the
/// model, "a12" a library asset, "u1" an upload or a camera photo): the page never names a file.
struct EditorImage: Sendable {
    enum Origin: Sendable {
        /// A file, URL or asset the model already names (checked against its hash when loaded).
        case reference(ImageReference)
        /// Bytes the page sent or the camera took, kept in memory until saved beside the avatar.
        case bytes([UInt8], fileExtension: String)
    }

    var origin: Origin
    /// What the page shows for it ("face.jpg", "Camera photo").
    var label: String
    /// Its picture for previews, once loaded.
    var preview: AvatarPicture?

    /// The picture covering a `side` square. Bytes are decoded from memory, a little larger than
    /// needed so that a moved focus still has pixels to show.
    func picture(covering side: Int, images: AvatarImages) async throws(GpickError) -> AvatarPicture {
        switch origin {
        case .reference(let reference):
            return try await images.picture(reference, covering: side)
        case .bytes(let bytes, let ext):
            let box = ImageBox(width: side * 3, height: side * 3, mode: .fit)
            let picture = try await OffPool.run { () throws(GpickError) in
                try StillImage.thumbnail(data: bytes, name: "the image (.\(ext))", box: box).packedRGBA()
            }
            return AvatarPicture(rgba: picture.bytes, width: picture.width, height: picture.height)
        }
    }

    /// An upload's extension by its content (JPEG, PNG, WebP, GIF, HEIF, TIFF, AVIF); nil when
    /// it is none of these.
    static func fileExtension(of bytes: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "jpg" }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "webp" }
        if starts(Array("GIF8".utf8)) { return "gif" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "tif" }
        if starts(Array("ftyp".utf8), at: 4) {
            let brand = bytes.count >= 12 ? String(decoding: bytes[8..<12], as: UTF8.self) : ""
            if ["avif", "avis"].contains(brand) { return "avif" }
            if ["heic", "heix", "mif1", "msf1", "heim", "heis"].contains(brand) { return "heic" }
        }
        return nil
    }
}
