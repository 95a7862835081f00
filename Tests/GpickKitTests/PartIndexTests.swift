import Foundation
@testable import GpickKit
import Testing

/// parts.json's lookup and the moments people type: which part holds a moment, and where in it.
struct PartIndexTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_957_500)  // 2026-11-29T13:05:00Z

    static func part(_ n: Int, _ start: Double, _ duration: Double) -> RecordedPart {
        RecordedPart(file: String(format: "rec-%03d.mp4", n), start: t0.addingTimeInterval(start), duration: duration,
                     frames: Int(duration * 30), bytes: 1000)
    }

    /// A part holds the moments from its start up to (not including) its end; a gap between two
    /// runs of parts, and the moments before the first and from the last one's end, hold none.
    @Test func aMomentIsInThePartThatHoldsIt() {
        let parts = [Self.part(1, 0, 1), Self.part(2, 1, 1), Self.part(3, 5, 1)]
        func at(_ s: Double) -> (String, Double)? {
            PartIndex.part(at: Self.t0.addingTimeInterval(s), in: parts).map { ($0.part.file, $0.offset) }
        }
        #expect(at(0)?.0 == "rec-001.mp4" && at(0)?.1 == 0)
        #expect(at(0.75)?.0 == "rec-001.mp4" && abs((at(0.75)?.1 ?? -1) - 0.75) < 1e-6)
        #expect(at(1)?.0 == "rec-002.mp4" && at(1)?.1 == 0)
        #expect(at(5.5)?.0 == "rec-003.mp4" && abs((at(5.5)?.1 ?? -1) - 0.5) < 1e-6)
        #expect(at(-0.001) == nil && at(2) == nil && at(3) == nil && at(6) == nil)
        #expect(PartIndex.part(at: Self.t0, in: []) == nil)
    }

    /// The index's text: the start as ISO 8601 in UTC with milliseconds, read back the same.
    @Test func anIndexReadsBackAsWritten() throws {
        let part = Self.part(7, 0.25, 60)
        let text = String(decoding: try JSONEncoder().encode(part), as: UTF8.self)
        #expect(text.contains("\"start\":\"2026-11-29T13:05:00.250Z\""), "\(text)")
        #expect(try JSONDecoder().decode(RecordedPart.self, from: Data(text.utf8)) == part)
        // Read and written again, a start keeps its text (to the millisecond, never one less).
        for fraction in [0.604, 0.999, 0.0005, 0.1234] {
            let once = RecordedPart.timeText(Self.t0.addingTimeInterval(59 + fraction))
            let again = RecordedPart.timeText(try #require(try? Date(once, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))))
            #expect(once == again, "\(once) became \(again)")
        }
        #expect(RecordedPart.timeText(Self.t0.addingTimeInterval(59.604)) == "2026-11-29T13:05:59.604Z")
        let bad = text.replacingOccurrences(of: "2026-11-29T13:05:00.250Z", with: "yesterday")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(RecordedPart.self, from: Data(bad.utf8)) }
    }

    /// ISO 8601 with a zone is that moment; a time of day alone is the last such time, today or
    /// yesterday, in the local zone; nonsense is nil.
    @Test func momentsAsPeopleWriteThem() throws {
        #expect(MomentText.parse("2026-11-29T13:05:00Z") == Self.t0)
        #expect(MomentText.parse("2026-11-29T14:05:00+01:00") == Self.t0)
        #expect(MomentText.parse("2026-11-29T13:05:00.500Z") == Self.t0.addingTimeInterval(0.5))
        let now = Date()
        for text in ["00:00", "12:30", "23:59:59", "07:15:30.5"] {
            let moment = try #require(MomentText.parse(text, now: now), "\(text)")
            #expect(moment <= now.addingTimeInterval(1) && moment > now.addingTimeInterval(-86_401), "\(text): \(moment)")
            // It is that time of day in the local zone.
            var seconds = time_t(moment.timeIntervalSince1970.rounded(.down))
            var fields = tm()
            localtime_r(&seconds, &fields)
            let clock = text.split(separator: ":").map { Double($0)! }
            #expect(Int(fields.tm_hour) == Int(clock[0]) && Int(fields.tm_min) == Int(clock[1]), "\(text): \(fields.tm_hour):\(fields.tm_min)")
        }
        // A date and time in the local zone: what mktime makes of the same fields.
        var fields = tm()
        (fields.tm_year, fields.tm_mon, fields.tm_mday, fields.tm_hour, fields.tm_min, fields.tm_sec, fields.tm_isdst) = (126, 10, 29, 14, 5, 30, -1)
        #expect(MomentText.parse("2026-11-29 14:05:30") == Date(timeIntervalSince1970: Double(mktime(&fields))))
        for nonsense in ["", "soon", "25:00", "14:60", "14", "2026-13-01 10:00", "2026-11-29", "14:05:99", "1:2:3:4"] {
            #expect(MomentText.parse(nonsense) == nil, "\(nonsense)")
        }
    }
}
