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
