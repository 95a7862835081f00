import ArgumentParser
import Foundation
import GpickKit

struct Pipelines: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List and check the declarative pipeline files.",
        subcommands: [List.self, Check.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the pipeline files found.")
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
                        print("\(f.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(f.kind.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)) \(f.summary.split(separator: "\n").first ?? "")")
                    }
                }
            }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Validate pipeline files (YAML, keys, types, elements, properties, bindings, taps).")
        @Argument(help: "Files or names; all of them when none is given.")
        var files: [String] = []
        @Flag(name: .long, help: "Allow elements that send data off the machine.")
        var allowNetwork = false
        @Flag(name: .long, help: "Allow file-writing elements whose location is not a parameter.")
        var allowPaths = false
        @OptionGroup var pipelines: PipelineOptions
        @OptionGroup var out: OutputOptions

        func run() async throws {
            let events = Events(json: out.json, command: "pipelines check")
            let lib = pipelines.library
            var failed = 0
            for name in files.isEmpty ? lib.names() : files {
                do {
                    let f = try lib.load(name)
                    try PipelineBuilder.validate(f, policy: PipelinePolicy(allowNetwork: allowNetwork, allowPaths: allowPaths))
                    if out.json { events.emit("valid", ["path": f.path]) } else { print("ok \(f.path)") }
                } catch let e as GpickError {
                    failed += 1
                    events.error(e)
                    Console.error(e.message)
                }
            }
            if failed > 0 { throw ExitCode(65) }
        }
    }
}
