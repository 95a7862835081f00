import GpickBase
import GpickCLI
import Testing

/// The CLI's side of every failure: the exit code a script sees (sysexits.h's, 130 for an
/// interruption) and the one line, with the remedy in this command line's flags.
@Suite struct ErrorWordingTests {
    @Test(arguments: [(GpickError.Kind.usage, Int32(64)), (.input, 65), (.pipeline, 65), (.device, 69), (.plugin, 69),
                      (.output, 73), (.runtime, 70), (.interrupted, 130)])
    func eachKindHasItsExitCode(kind: GpickError.Kind, code: Int32) {
        #expect(GpickError(kind, "x").exitCode == code)
    }

    @Test func aRemedyIsWordedInFlagsAfterTheMessage() {
        #expect(GpickError(.device, "no camera found").line == "no camera found")
        #expect(GpickError(.device, "no camera found", remedy: .useTestSource).line == "no camera found (--source test gives the test pattern)")
        #expect(GpickError(.usage, "no terminal", remedy: .useWebPicker).line == "no terminal (use --ui web)")
        #expect(GpickError(.input, "asset:3: the library has no index yet", remedy: .scanLibrary).line
                == "asset:3: the library has no index yet (`gpick library scan` makes one)")
        #expect(GpickError(.usage, "port 80 is privileged", remedy: .choosePort(privileged: true)).line.hasSuffix("(choose one above 1023 with --port)"))
        #expect(GpickError(.pipeline, "f.yaml:3: no path", remedy: .giveParameter("location")).line.hasSuffix("(give it with --set location=PATH)"))
    }

    /// Every remedy has words, and none is left without a flag or a command to act on.
    @Test func everyRemedyNamesSomethingToDo() {
        let all: [GpickError.Remedy] = [.giveFrontCamera, .allowNetwork, .bindOrAllowPaths(binding: "sink.location"), .giveParameter("p"),
                                        .choosePort(privileged: false), .force, .chooseFormat, .choosePreviewSink, .checkPlugins,
                                        .rebuildIndex, .useTestSource, .useWebPicker, .scanLibrary]
        for r in all {
            let line = GpickError(.usage, "m", remedy: r).line
            #expect(line.contains("--") || line.contains("`gpick "), "\(r): \(line)")
        }
    }
}
