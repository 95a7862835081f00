import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit

struct Pipelines: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipelines",
        abstract: "List and check the declarative pipeline files.",
        subcommands: [List.self, Show.self, Check.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the resolved gst-launch-1.0 line of a pipeline file; it runs as printed.")
        @Argument(help: "A pipeline file path or name.")
        var pipeline: String
        @OptionGroup var set: SetOptions
        @Option(name: .long, parsing: .unconditional, help: "Seconds of test input for sources and branches.")
        var duration: Double = 2
        @Option(name: .long, parsing: .unconditional, help: "Frame width.") var width = 640
        @Option(name: .long, parsing: .unconditional, help: "Frame height.") var height = 360
        @Option(name: .long, parsing: .unconditional, help: "Frames per second.") var fps = 30
        @OptionGroup var pipelines: PipelineOptions
        @OptionGroup var out: OutputOptions

        func run() async throws {
            let events = Events(json: out.json, command: "pipelines show")
            try await reporting(events) {
                let file = try pipelines.library.load(pipeline)
                let (values, paths) = try set.resolve(for: file)
                var ctx = LaunchLine.Context()
                ctx.format = SessionFormat(width: width, height: height, fps: fps)
                try ctx.format.validate()
                ctx.seconds = duration
                let context = ctx
                let line = try await OffPool.run { () throws(GpickError) in try LaunchLine.render(file, values: values, outputs: paths, context: context) }
                if out.json { events.emit("launch-line", ["path": file.path, "line": line]) } else { print(line) }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the pipeline files found.")
        @OptionGroup var pipelines: PipelineOptions
        @OptionGroup var out: OutputOptions

        func run() async throws {
            let events = Events(json: out.json, command: "pipelines list")
            try await reporting(events) {
                let lib = pipelines.library
                for name in lib.names() {
                    let f = try lib.load(name)
                    if out.json {
                        events.emit("pipeline", ["name": f.name, "kind": f.kind.rawValue, "path": f.path, "description": f.summary])
                    } else {
                        print("\(f.name.padded(to: 16)) \(f.kind.rawValue.padded(to: 13)) \(f.summary.split(separator: "\n").first ?? "")")
                    }
                }
            }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "check", abstract: "Validate pipeline files (YAML, keys, types, elements, properties, bindings, taps).")
        @Argument(help: "Files or names; all of them when none is given.")
        var files: [String] = []
        @OptionGroup var policy: PolicyOptions
        @OptionGroup var pipelines: PipelineOptions
        @OptionGroup var out: OutputOptions

        func run() async throws {
            let events = Events(json: out.json, command: "pipelines check")
            let lib = pipelines.library
            var failed = 0
            for name in files.isEmpty ? lib.names() : files {
                do throws(GpickError) {
                    let f = try lib.load(name)
                    try await PipelineBuilder.validate(f, policy: policy.policy)
                    if out.json { events.emit("valid", ["path": f.path]) } else { print("ok \(f.path)") }
                } catch let e {
                    failed += 1
                    events.error(e)
                    Console.error(e.line)
                }
            }
            if failed > 0 { throw ExitCode(65) }
        }
    }
}
