import Foundation
import GpickBase
import GpickImages
import GpickLibrary
import GpickPicker
import GpickTestSupport
import Testing

/// The picker's configuration is checked up front: a bad value is a typed error from `Picker`'s
/// init, before any server, camera or index is opened.
@Suite struct PickerConfigurationTests {
    static func configuration() -> PickerConfiguration {
        let dir = TestEnvironment.tempDir("picker-config")
        var c = PickerConfiguration(indexPath: dir + "/index.sqlite", roots: MediaRoots(paths: [dir]),
                                    thumbnails: ThumbnailCache(base: dir + "/thumbnails", version: "test"))
        c.capture.outputDirectory = dir
        return c
    }

    @Test func itemsPerRowZeroIsAnErrorNotACrash() {
        var c = Self.configuration()
        c.layout.itemsPerRow = 0
        #expect(throws: GpickError.self) { _ = try Picker(c) }
        do { _ = try Picker(c) } catch {
            #expect(error.kind == .usage && error.message == "items per row must be 1 or more, not 0")
        }
    }

    @Test func badActionsAndFoldersAreRefused() {
        let cases: [(String, (inout PickerConfiguration) -> Void)] = [
            ("at most 2 action items, not 3", { $0.layout.actions = ["a", "b", "c"] }),
            ("action names must differ: a, a", { $0.layout.actions = ["a", "a"] }),
            ("action name \"\" must be 1…40 printable characters", { $0.layout.actions = [""] }),
            ("action name \"a\u{1b}[2J\" must be 1…40 printable characters", { $0.layout.actions = ["a\u{1b}[2J"] }),
            ("the output folder /nonexistent/gpick is not a folder", { $0.capture.outputDirectory = "/nonexistent/gpick" }),
            ("the longest video must be 1 s…24 h, not 0.5 s", { $0.capture.videoMaximumDuration = 0.5 }),
            ("the longest video must be 1 s…24 h, not 86401 s", { $0.capture.videoMaximumDuration = 86_401 }),
        ]
        for (message, change) in cases {
            var c = Self.configuration()
            change(&c)
            do {
                _ = try Picker(c)
                Issue.record("accepted: \(message)")
            } catch {
                #expect(error.message == message)
            }
        }
        // Without a camera cell the output folder is never used, so it is not checked.
        var c = Self.configuration()
        c.layout.showsCamera = false
        c.capture.outputDirectory = "/nonexistent/gpick"
        #expect(throws: Never.self) { _ = try Picker(c) }
    }
}

/// The picker's appearance: its values are checked as the rest of the configuration is, in the
/// library's words (no command-line flag named), and the accent's text is the readable one.
@Suite struct PickerAppearanceTests {
    @Test func accentsAreHexColoursAndTheirTextIsBlackOrWhiteByContrast() {
        typealias A = PickerConfiguration.Appearance
        let channels = { (hex: String) in A.rgb(hex).map { [$0.r, $0.g, $0.b] } }
        #expect(channels("#f80") == [255, 136, 0])
        #expect(channels("#2F6FD6") == [0x2f, 0x6f, 0xd6])
        for bad in ["red", "f80", "#ff80", "#ggg", "#ff8800aa", "rgb(1,2,3)", ""] { #expect(A.rgb(bad) == nil, "\(bad)") }
        var a = A()
        // gpick's blue: white reads at 4.8:1, black at 4.4:1.
        #expect(a.textOnAccent == "#ffffff")
        a.accent = "#f80"
        #expect(a.textOnAccent == "#000000")
        a.accent = "#000"
        #expect(a.textOnAccent == "#ffffff")
        a.accent = "#ffff00"
        #expect(a.textOnAccent == "#000000")
    }

    @Test func badValuesAreTypedErrorsInTheLibrarysWords() {
        let dir = TestEnvironment.tempDir("picker-style")
        let cases: [(GpickError.Kind, String, (inout PickerConfiguration.Appearance) -> Void)] = [
            (.usage, "the accent colour must be a hex colour #rgb or #rrggbb, not \"red\"", { $0.accent = "red" }),
            (.usage, "the spacing between cells must be 0…64 pixels, not 65", { $0.spacing = 65 }),
            (.usage, "the insets around the grid must be 0…128 pixels, not -1", { $0.insets = -1 }),
            (.input, "no such stylesheet: \(dir)/none.css", { $0.stylesheet = dir + "/none.css" }),
            (.input, "the stylesheet \(dir) is a folder, not a file", { $0.stylesheet = dir }),
        ]
        for (kind, message, change) in cases {
            var c = PickerConfigurationTests.configuration()
            change(&c.appearance)
            do {
                _ = try Picker(c)
                Issue.record("accepted: \(message)")
            } catch {
                #expect(error.kind == kind && error.message == message)
                #expect(!error.message.contains("--"), "a flag named in the library: \(error.message)")
            }
        }
        let style = dir + "/mine.css"
        _ = FileManager.default.createFile(atPath: style, contents: Data("body { background: #ff00ff }\n".utf8))
        var c = PickerConfigurationTests.configuration()
        c.appearance = .init()
        c.appearance.theme = .dark
        c.appearance.stylesheet = style
        #expect(throws: Never.self) { _ = try Picker(c) }
    }
}
