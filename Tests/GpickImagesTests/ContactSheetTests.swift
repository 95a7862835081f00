import CVips
import Foundation
import GpickBase
@testable import GpickImages
@testable import GpickLibrary
import Testing

/// The contact sheet's arithmetic and badges, and its drawing primitives in process (the whole
/// command, on real files, is LibrarySheetTests).
@Suite struct ContactSheetTests {
    static func item(_ kind: Asset.Kind = .photo, duration: Double? = nil, live: Bool = false, burst: Int = 1,
                     panorama: Bool = false) -> ListedAsset {
        var a = Asset(path: "/p/a", root: "/p", device: 0, inode: 0, size: 0, mtimeNs: 0, kind: kind,
                      mimeType: kind == .video ? "video/mp4" : "image/jpeg", takenAt: 0, addedAt: 0)
        a.duration = duration
        a.live = live
        a.burst = burst > 1
        a.panorama = panorama
        return ListedAsset(asset: a, burstCount: burst)
    }

    @Test func badgesSayWhatAStillCannotShow() {
        #expect(ContactSheet.badge(for: Self.item()) == nil)
        #expect(ContactSheet.badge(for: Self.item(live: true)) == "LIVE")
        #expect(ContactSheet.badge(for: Self.item(.video, duration: 2.6)) == "▶ 0:03")
        #expect(ContactSheet.badge(for: Self.item(.video, duration: 599.4)) == "▶ 9:59")
        #expect(ContactSheet.badge(for: Self.item(.video, duration: 3725)) == "▶ 1:02:05")
        #expect(ContactSheet.badge(for: Self.item(.video)) == "▶")
        #expect(ContactSheet.badge(for: Self.item(burst: 12)) == "burst ×12")
        #expect(ContactSheet.badge(for: Self.item(live: true, panorama: true)) == "LIVE · PANO")
    }

    @Test func theLayoutIsColumnsTimesCellsPlusGaps() {
        let sheet = ContactSheet(columns: 3, cell: 256, gap: 8)
        let five = sheet.layout(count: 5)
        #expect(five.columns == 3 && five.rows == 2 && five.width == 800 && five.height == 536)
        #expect(five.origin(of: 0) == (8, 8) && five.origin(of: 2) == (536, 8) && five.origin(of: 4) == (272, 272))
        // Fewer assets than columns: no empty columns.
        let two = ContactSheet(columns: 6, cell: 100, gap: 0).layout(count: 2)
        #expect(two.columns == 2 && two.rows == 1 && two.width == 200 && two.height == 100)
        // The cache size holding a cell.
        #expect(ContactSheet(cell: 128).cacheSize == .normal && ContactSheet(cell: 129).cacheSize == .large)
        #expect(ContactSheet(cell: 256).cacheSize == .large && ContactSheet(cell: 300).cacheSize == .xLarge)
        #expect(ContactSheet(cell: 1024).cacheSize == .xxLarge)
    }

    @Test func aSheetTooLargeForItsFormatOrForMemoryIsRefusedFirst() throws {
        // 1000 assets, 6 columns of 256: 1592×44096, fine as PNG or JPEG, too tall for WebP.
        let tall = ContactSheet().layout(count: 1000)
        #expect(tall.width == 1592 && tall.height == 44096)
        try ContactSheet.check(tall, format: .png)
        try ContactSheet.check(tall, format: .jpeg)
        #expect(throws: GpickError.self) { try ContactSheet.check(tall, format: .webp) }
        do { try ContactSheet.check(tall, format: .webp) } catch { #expect(error.kind == .usage && error.message.contains("16383")) }
        let huge = ContactSheet(columns: 64, cell: 1024, gap: 0).layout(count: 1000)
        #expect(throws: GpickError.self) { try ContactSheet.check(huge, format: .png) }
    }

    @Test func cellsAndBadgesAreDrawnByLibvips() throws {
        let sheet = ContactSheet(columns: 2, cell: 128, gap: 4)
        // Markup characters are text, not pango markup (which would fail to parse).
        let ink = try VipsPicture.textMask("<b>&", font: ContactSheet.badgeFont, pixels: 16)
        #expect(ink.bands == 1 && ink.width > 20 && ink.height >= 12)
        let placeholder = try sheet.placeholder()
        #expect(placeholder.width == 128 && placeholder.height == 128 && placeholder.bands == 3)
        // A badge darkens its pill (left of the text: only the pill there) and nothing else.
        let blank = try VipsPicture.blank(width: 128, height: 128, bands: 3).filled(with: [200, 200, 200])
        let badged = try sheet.badged(blank, "▶ 0:03").inMemory()
        #expect(badged.width == 128 && badged.height == 128 && badged.bands == 3)
        let f = try #require(try sheet.badge("▶ 0:03")).frame
        #expect(f.x > 0 && f.y + f.height < 128 && f.y > 100, "\(f)")
        let inPill = try badged.derive("crop", subject: "test") { cvips_extract_area($0, $1, Int32(f.x + f.height / 4), Int32(f.y + f.height / 2 - 1), 2, 2) }
        #expect(abs(try inPill.meanLuma() - 200 * (1 - ContactSheet.pillOpacity)) < 4)
        let above = try badged.derive("crop", subject: "test") { cvips_extract_area($0, $1, 0, 0, 128, Int32(f.y)) }
        #expect(abs(try above.meanLuma() - 200) < 1)
        // Too small a cell for the pill: no badge rather than a clipped one.
        let tiny = ContactSheet(cell: 32)
        let small = try VipsPicture.blank(width: 32, height: 32, bands: 3).filled(with: [200, 200, 200])
        #expect(abs(try tiny.badged(small, "▶ 1:02:05").meanLuma() - 200) < 1)
    }
}
