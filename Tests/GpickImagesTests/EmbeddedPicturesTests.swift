import Foundation
@testable import GpickImages
import Testing

/// Which files a thumbnail reads gpick's metadata of before libvips decodes them: those whose
/// embedded pictures can stand in (RAW previews, HEIF grids and thumbnail items), not the rest.
struct EmbeddedPicturesTests {
    static func head(_ s: String, _ pad: Int = 16) -> [UInt8] { Array(s.utf8) + [UInt8](repeating: 0, count: pad) }

    @Test func onlyRawAndISOBMFFFilesAreLookedInto() {
        #expect(EmbeddedPictures.mayEmbedPictures(Self.head("II*\0")))             // TIFF, DNG, NEF, ARW, CR2…
        #expect(EmbeddedPictures.mayEmbedPictures(Self.head("MM\0*")))
        #expect(EmbeddedPictures.mayEmbedPictures(Self.head("IIRO")))              // Olympus ORF
        #expect(EmbeddedPictures.mayEmbedPictures(Self.head("IIU\0")))             // Panasonic RW2
        #expect(EmbeddedPictures.mayEmbedPictures(Self.head("FUJIFILMCCD-RAW 0201")))
        #expect(EmbeddedPictures.mayEmbedPictures([0, 0, 0, 0x18] + Self.head("ftypheic")))
        #expect(EmbeddedPictures.mayEmbedPictures([0, 0, 0, 0x1c] + Self.head("ftypavif")))
        #expect(!EmbeddedPictures.mayEmbedPictures([0xFF, 0xD8, 0xFF, 0xE1] + Self.head("")))  // JPEG
        #expect(!EmbeddedPictures.mayEmbedPictures([0x89] + Self.head("PNG\r\n\u{1A}\n")))
        #expect(!EmbeddedPictures.mayEmbedPictures(Self.head("RIFF\0\0\0\0WEBP")))
        #expect(!EmbeddedPictures.mayEmbedPictures([0xFF, 0x0A]))                  // JPEG XL, and too short for ftyp
    }
}
