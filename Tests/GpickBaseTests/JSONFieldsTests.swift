import Foundation
import GpickBase
import Testing

/// Event fields are typed JSON values: what a line prints, and what a reader can take back.
@Suite struct JSONFieldsTests {
    @Test func mixedFieldsPrintAsOneSortedObject() {
        let missing: String? = nil
        let fields: JSONFields = [
            "path": "/a/b c", "n": 3, "x": 0.5, "ok": true, "none": missing, "list": ["a", "b"],
            "nested": JSONValue(fields: ["k": Int64(1), "ranges": [[1, 2], [3, 4]]]),
            "big": UInt64.max, "nan": Double.nan,
        ]
        #expect(JSONValue(fields: fields).line
                == #"{"big":1.8446744073709552e+19,"list":["a","b"],"n":3,"nan":null,"nested":{"k":1,"ranges":[[1,2],[3,4]]},"none":null,"ok":true,"path":"/a/b c","x":0.5}"#)
    }

    @Test func aReasonPrintsItsMessageAndIsTakenBackWhole() {
        let reason = GpickError(.usage, "no such element", remedy: nil)
        let fields: JSONFields = ["reason": reason, "line": 4]
        #expect(JSONValue(fields: fields).line == #"{"line":4,"reason":"no such element"}"#)
        #expect((fields["reason"] as? GpickError)?.message == "no such element")
        #expect(fields["line"] as? Int == 4)
    }

    @Test func numbersReadBackAsNumbers() throws {
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"focus":[1,0.25],"id":"m0"}"#.utf8))
        guard case .object(let o) = decoded, case .array(let focus)? = o["focus"] else {
            Issue.record("not an object with a focus: \(decoded)")
            return
        }
        #expect(focus.map(\.number) == [1, 0.25])
        #expect(o["id"]?.number == nil)
    }
}
