import Foundation
@testable import GpickImages
import GpickBase
import GpickFormats
import GpickTestSupport
import Testing

/// libvips keeps one error buffer for the whole process. Decodes failing on several threads at
/// once must each be told their own file's reason: a JPEG cut short is "truncated or damaged", one
/// whose Huffman table is garbage is "damaged", never the other's words or "could not be decoded"
/// (what a reason taken by another thread left). The reason comes from the file's structure.
@Suite struct FailureReasonTests {
    @Test func failuresOnManyThreadsEachGetTheirOwnReason() async throws {
        let dir = Fixture.dir()
        let good = "\(dir)/good.jpg"
        try await Fixture.jpeg(good, width: 1280, height: 960)
        let jpeg = try Fixture.bytes(good)
        let cut = "\(dir)/cut.jpg", garbled = "\(dir)/huffman.jpg"
        try Fixture.write(Array(jpeg.prefix(jpeg.count * 2 / 3)), to: cut)
        var damaged = jpeg
        let table = try #require((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC4 })
        for i in (table + 4)..<(table + 40) { damaged[i] = 0xFF }
        try Fixture.write(damaged, to: garbled)
        let expected = [cut: "cannot read \(cut): the file is truncated or damaged",
                        garbled: "cannot read \(garbled): the file is damaged"]

        // Four threads, each failing twelve times, the two files in turn; the good file between,
        // so that successes run beside the failures too.
        let wrong = try await OffPool.run { () -> [String] in
            let found = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { t in
                for i in 0..<12 {
                    let file = (t + i) % 2 == 0 ? cut : garbled
                    do {
                        _ = try StillImage.thumbnail(path: file, box: .square(160))
                        found.withLock { $0.append("\(file) was decoded") }
                    } catch {
                        let message = (error as? GpickError)?.message ?? "\(error)"
                        if message != expected[file] { found.withLock { $0.append(message) } }
                    }
                    if (try? StillImage.thumbnail(path: good, box: .square(160))) == nil {
                        found.withLock { $0.append("the good file failed") }
                    }
                }
            }
            return found.withLock { $0 }
        }
        #expect(wrong.isEmpty, "\(wrong.count) of 48 failures had another reason: \(Array(wrong.prefix(4)))")
    }

    /// What the structure says, format by format: cut short, or whole (a Motion Photo's movie
    /// after the JPEG's end is not a cut).
    @Test func aFileCutShortIsToldFromItsStructure() async throws {
        let dir = Fixture.dir()
        try await Fixture.jpeg("\(dir)/good.jpg", width: 640, height: 480)
        let jpeg = try Fixture.bytes("\(dir)/good.jpg")
        #expect(try StillDamage.isCut(MemoryBytes(jpeg)) == false)
        #expect(try StillDamage.isCut(MemoryBytes(jpeg + Array(repeating: 0x42, count: 5000))) == false)
        for keep in [jpeg.count - 2, jpeg.count / 2, 300, 3] {
            #expect(try StillDamage.isCut(MemoryBytes(Array(jpeg.prefix(keep)))) == true, "\(keep) of \(jpeg.count) bytes")
        }
        let png = TestPNG.make(width: 16, height: 16, rgba: [UInt8](repeating: 90, count: 16 * 16 * 4))
        #expect(try StillDamage.isCut(MemoryBytes(png)) == false)
        #expect(try StillDamage.isCut(MemoryBytes(Array(png.dropLast(12)))) == true)
        // An ISO file (HEIF, AVIF) whose mdat says it is longer than what is there.
        let ftyp: [UInt8] = [0, 0, 0, 16] + Array("ftypheic".utf8) + [0, 0, 0, 0]
        let mdat: [UInt8] = [0, 0, 0x10, 0] + Array("mdat".utf8) + Array(repeating: 7, count: 100)
        #expect(try StillDamage.isCut(MemoryBytes(ftyp + mdat)) == true)
        #expect(try StillDamage.isCut(MemoryBytes(ftyp + [0, 0, 0, 108] + Array("mdat".utf8) + Array(repeating: 7, count: 100))) == false)
        #expect(try StillDamage.isCut(MemoryBytes(Array("II*\0 a TIFF".utf8))) == nil)
    }
}
