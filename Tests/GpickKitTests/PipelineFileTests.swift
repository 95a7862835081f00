import Foundation
import GpickKit
import GpickTestSupport
import Testing

/// Malformed pipeline files, one per error class: each rejected before anything runs, naming file:line.
@Suite(.serialized) struct PipelineFileTests {
    struct Bad: CustomStringConvertible, Sendable {
        let name: String
        let yaml: String
        let line: Int
        let mentions: String
        var description: String { name }
    }

    static let valid = """
    name: ok
    kind: branch
    parameters:
      output:
        type: output-path
        required: true
      quality:
        type: int
        min: 1
        max: 100
        default: 80
    pipeline: queue name=video ! jpegenc name=enc ! fdsink name=sink
    bindings:
      output: sink.fd
      quality: enc.quality
    """

    static let bad: [Bad] = [
        Bad(name: "yaml syntax", yaml: "name: x\nkind: [branch\npipeline: fakesink\n", line: 3, mentions: "YAML syntax error"),
        Bad(name: "duplicate key", yaml: "name: x\nkind: branch\nname: y\npipeline: fakesink\n", line: 3, mentions: "duplicate key \"name\""),
        Bad(name: "two documents", yaml: "name: x\nkind: branch\npipeline: fakesink\n---\nname: y\n", line: 4, mentions: "one YAML document"),
        Bad(name: "unknown alias", yaml: "name: x\nkind: branch\npipeline: *nope\n", line: 3, mentions: "YAML syntax error"),
        Bad(name: "empty file", yaml: "# nothing\n", line: 1, mentions: "empty pipeline file"),
        Bad(name: "unknown top key", yaml: "name: x\nkind: branch\npipelin: fakesink\n", line: 3, mentions: "unknown key \"pipelin\" (did you mean \"pipeline\"?)"),
        Bad(name: "missing pipeline", yaml: "name: x\nkind: branch\n", line: 1, mentions: "missing required key \"pipeline\""),
        Bad(name: "unknown kind", yaml: "name: x\nkind: sauce\npipeline: fakesink\n", line: 2, mentions: "kind \"sauce\""),
        Bad(name: "unknown parameter key", yaml: "name: x\nkind: branch\nparameters:\n  q:\n    type: int\n    defualt: 3\npipeline: fakesink\n", line: 6, mentions: "did you mean \"default\""),
        Bad(name: "unknown parameter type", yaml: "name: x\nkind: branch\nparameters:\n  q:\n    type: integer\npipeline: fakesink\n", line: 5, mentions: "unknown type \"integer\""),
        Bad(name: "default out of range", yaml: "name: x\nkind: branch\nparameters:\n  q:\n    type: int\n    min: 1\n    max: 10\n    default: 11\npipeline: fakesink\n", line: 8, mentions: "out of range 1…10"),
        Bad(name: "default wrong type", yaml: "name: x\nkind: branch\nparameters:\n  q:\n    type: bool\n    default: maybe\npipeline: fakesink\n", line: 6, mentions: "not true or false"),
        Bad(name: "enum without choices", yaml: "name: x\nkind: branch\nparameters:\n  q:\n    type: enum\npipeline: fakesink\n", line: 5, mentions: "needs choices"),
        Bad(name: "unknown element", yaml: "name: x\nkind: branch\npipeline: |\n  queue name=video\n  ! videoconvrt ! fakesink\n", line: 5, mentions: "unknown element \"videoconvrt\" (did you mean \"videoconvert\"?)"),
        Bad(name: "unknown property in description", yaml: "name: x\nkind: branch\npipeline: |\n  queue name=video\n  ! jpegenc qualty=3 ! fakesink\n", line: 5, mentions: "no property \"qualty\""),
        Bad(name: "binding to missing element", yaml: "name: x\nkind: branch\nparameters:\n  q:\n    type: int\n    default: 3\npipeline: queue name=video ! fakesink\nbindings:\n  q: enc.quality\n", line: 9, mentions: "no element named \"enc\""),
        Bad(name: "binding to missing property", yaml: "name: x\nkind: branch\nparameters:\n  q:\n    type: int\n    default: 3\npipeline: queue name=video ! jpegenc name=enc ! fakesink\nbindings:\n  q: enc.qualiti\n", line: 9, mentions: "did you mean \"quality\""),
        Bad(name: "enum choice the property refuses", yaml: "name: x\nkind: branch\nparameters:\n  p:\n    type: enum\n    choices: [smpte, snow, fog]\n    default: snow\npipeline: videotestsrc name=s ! fakesink\nbindings:\n  p: s.pattern\n", line: 4, mentions: "parameter p: value \"fog\" for s.pattern is not a valid GstVideoTestSrcPattern (videotestsrc), yet it is one of its choices"),
        Bad(name: "binding for unknown parameter", yaml: "name: x\nkind: branch\npipeline: fakesink name=s\nbindings:\n  nope: s.sync\n", line: 5, mentions: "unknown parameter \"nope\""),
        Bad(name: "binding not element.property", yaml: "name: x\nkind: branch\nparameters:\n  q:\n    type: int\n    default: 3\npipeline: fakesink name=s\nbindings:\n  q: sync\n", line: 9, mentions: "must be ELEMENT.PROPERTY"),
        Bad(name: "tap not an appsink", yaml: "name: x\nkind: encoder\npipeline: appsrc name=in ! fakesink name=out\ntaps:\n  output:\n    element: out\n    role: appsink\n", line: 5, mentions: "is a fakesink, not an appsink"),
        Bad(name: "file sink with literal path", yaml: "name: x\nkind: pipeline\npipeline: videotestsrc ! filesink location=/etc/owned\n", line: 3, mentions: "filesink writes to a path not given by an output-path parameter"),
        Bad(name: "network sink", yaml: "name: x\nkind: pipeline\npipeline: |\n  videotestsrc\n  ! udpsink host=127.0.0.1\n", line: 5, mentions: "udpsink sends data off the machine"),
        Bad(name: "media audio without media", yaml: "name: x\nkind: branch\npipeline: queue name=video ! appsink name=sink\naudio: queue name=audio ! appsink name=asink\nmedia-audio: appsrc name=asrc ! rtpopuspay name=pay1\n", line: 5, mentions: "\"media-audio\" is the audio of a \"media\""),
        Bad(name: "media audio without asink", yaml: "name: x\nkind: branch\npipeline: queue name=video ! appsink name=sink\naudio: queue name=audio ! fakesink\nmedia: appsrc name=src ! rtph264pay name=pay0\nmedia-audio: appsrc name=asrc ! rtpopuspay name=pay1\n", line: 6, mentions: "appsink named \"asink\""),
        Bad(name: "media audio without pay1", yaml: "name: x\nkind: branch\npipeline: queue name=video ! appsink name=sink\naudio: queue name=audio ! appsink name=asink\nmedia: appsrc name=src ! rtph264pay name=pay0\nmedia-audio: appsrc name=asrc ! rtpopuspay name=pay0\n", line: 6, mentions: "payloader named \"pay1\""),
        Bad(name: "media audio asrc not an appsrc", yaml: "name: x\nkind: branch\npipeline: queue name=video ! appsink name=sink\naudio: queue name=audio ! appsink name=asink\nmedia: appsrc name=src ! rtph264pay name=pay0\nmedia-audio: |\n  audiotestsrc name=asrc\n  ! opusenc ! rtpopuspay name=pay1\n", line: 7, mentions: "appsrc named \"asrc\""),
        Bad(name: "send audio without send", yaml: "name: x\nkind: branch\npipeline: queue name=video ! appsink name=sink\naudio: queue name=audio ! appsink name=asink\nsend-audio: appsrc name=asrc ! aacparse ! mux.\n", line: 5, mentions: "\"send-audio\" is the audio of a \"send\""),
        Bad(name: "send audio without asrc", yaml: "name: x\nkind: branch\npipeline: queue name=video ! appsink name=sink\naudio: queue name=audio ! appsink name=asink\nsend: appsrc name=src ! h264parse ! flvmux name=mux ! rtmp2sink name=out\nsend-audio: appsrc name=sound ! aacparse ! mux.\n", line: 6, mentions: "appsrc named \"asrc\""),
        Bad(name: "required with default", yaml: "name: x\nkind: branch\nparameters:\n  q:\n    type: int\n    required: true\n    default: 2\npipeline: fakesink\n", line: 4, mentions: "required and has a default"),
    ]

    @Test func validFileBuilds() throws {
        let f = try PipelineLoader.parse(Self.valid, path: "ok.yaml")
        try PipelineBuilder.validate(f)
        #expect(f.parameter("quality")?.defaultValue == .int(80))
        #expect(f.bindings.map { "\($0.element).\($0.property)" } == ["sink.fd", "enc.quality"])
    }

    @Test(arguments: bad)
    func rejectedWithFileAndLine(_ b: Bad) throws {
        let path = "/tmp/fixtures/\(b.name.replacingOccurrences(of: " ", with: "-")).yaml"
        do {
            let f = try PipelineLoader.parse(b.yaml, path: path)
            try PipelineBuilder.validate(f)
            Issue.record("\(b.name) was accepted")
        } catch {
            #expect(error.message.hasPrefix("\(path):\(b.line): "), "\(error.message)")
            #expect(error.message.contains(b.mentions), "\(error.message)")
        }
    }

    /// YAML beyond plain keys: comments, flow sequences, quoting, anchors, block scalars and their lines.
    @Test func yamlFeaturesReadAsWritten() throws {
        let text = """
        # a comment
        name: "quoted: x"
        kind: branch
        parameters:
          q: &int {type: int, min: 1, max: 9, default: '4'}
          r: *int
          m:
            type: enum
            choices: [a, "b c", d]
            required: yes
        pipeline: >
          queue name=video
          ! jpegenc name=enc ! fakesink
        bindings:
          q: [enc.quality]
          r: enc.quality
        """
        let f = try PipelineLoader.parse(text, path: "y.yaml")
        #expect(f.name == "quoted: x")
        #expect(f.parameter("q")?.defaultValue == .int(4))
        #expect(f.parameter("r")?.defaultValue == .int(4))
        #expect(f.parameter("m")?.required == true)
        if case .enumeration(let choices)? = f.parameter("m")?.type { #expect(choices == ["a", "b c", "d"]) } else { Issue.record("m is not an enum") }
        #expect(f.pipeline.value == "queue name=video ! jpegenc name=enc ! fakesink")
        #expect(f.pipeline.line == 12)  // a folded scalar's text starts on the line after its key
        #expect(f.bindings.map(\.line) == [15, 16])
    }

    @Test func explicitPermissionAllowsPathsAndNetwork() throws {
        let f = try PipelineLoader.parse("name: x\nkind: pipeline\npipeline: videotestsrc ! udpsink host=127.0.0.1\n", path: "n.yaml")
        try PipelineBuilder.validate(f, policy: PipelinePolicy(allowNetwork: true))
    }

    @Test func valuesAreTypedPropertiesNeverText() throws {
        // A value that would be a pipeline if spliced into the text is only an odd string here.
        let f = try PipelineLoader.parse("name: x\nkind: pipeline\nparameters:\n  label:\n    type: string\n    default: a\npipeline: videotestsrc ! textoverlay name=t ! fakesink\nbindings:\n  label: t.text\n", path: "i.yaml")
        let evil = "a ! filesink location=/tmp/owned"
        let bin = try PipelineBuilder.build(f, values: ["label": .string(evil)], asPipeline: true)
        #expect(try bin.requireElement(named: "t").get("text") == .string(evil))
        #expect(!bin.children.contains { $0.factoryName == "filesink" })
    }

    @Test func shippedFilesAllValidate() throws {
        let lib = TestEnvironment.library
        #expect(lib.names().count >= 12)
        for name in lib.names() { try PipelineBuilder.validate(try lib.load(name)) }
    }
}
