import GpickCLI
import Testing

/// Which `gpick inspect` command lines go to gpick-library before gpick parses them: those that
/// gpick-library's own inspect parses the same way.
struct InspectHandOverTests {
    @Test func oneFileAndTheOptionsBothTakeAreHandedOver() {
        #expect(InspectHandOver.file(["inspect", "a.jpg"]) == "a.jpg")
        #expect(InspectHandOver.file(["inspect", "--json", "a.jpg", "--stamps", "--verbose"]) == "a.jpg")
        #expect(InspectHandOver.file(["inspect", "--pipelines", "dir", "a.jpg"]) == "a.jpg")
        #expect(InspectHandOver.file(["inspect", "--pipelines=dir", "a.jpg"]) == "a.jpg")
        // After "--" a name is a file even if it starts with a dash.
        #expect(InspectHandOver.file(["inspect", "--json", "--", "-a.jpg"]) == "-a.jpg")
        // The directory after --pipelines is not the file.
        #expect(InspectHandOver.file(["inspect", "a.jpg", "--pipelines", "b.jpg"]) == "a.jpg")
    }

    @Test func anythingElseIsParsedByGpick() {
        #expect(InspectHandOver.file(["inspect"]) == nil)
        #expect(InspectHandOver.file(["inspect", "--help"]) == nil)
        #expect(InspectHandOver.file(["inspect", "-h", "a.jpg"]) == nil)
        #expect(InspectHandOver.file(["inspect", "a.jpg", "b.jpg"]) == nil)
        #expect(InspectHandOver.file(["inspect", "a.jpg", "--bogus"]) == nil)
        #expect(InspectHandOver.file(["inspect", "a.jpg", "--pipelines"]) == nil)
        #expect(InspectHandOver.file(["snap", "a.jpg"]) == nil)
        #expect(InspectHandOver.file(["inspect", "--", "a.jpg", "b.jpg"]) == nil)
    }
}
