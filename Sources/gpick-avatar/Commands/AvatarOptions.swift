import ArgumentParser
import Foundation
import GpickAvatar
import GpickBase
import GpickImages
import GpickLibrary
import GpickPickCLI

/// What describes an avatar on the command line; each given option overrides the model's field.
struct AvatarOptions: ParsableArguments {
    @Option(name: .long, help: "The text: a name (its initials are shown), a short word or an emoji.")
    var text: String?

    @Flag(name: .customLong("initials-from-name"), help: "Show the initials of the text: its first character and the first after the last space (the default for text with spaces).")
    var initialsFromName = false

    @Flag(name: .long, help: "Show the text as given.")
    var literal = false

    @Option(name: .long, help: ArgumentHelp("A solid background colour: \(AvatarColor.accepted).", valueName: "C"))
    var color: String?

    @Option(name: .long, help: ArgumentHelp("A vertical gradient, top to bottom.", valueName: "C1,C2"))
    var gradient: String?

    @Option(name: .long, help: ArgumentHelp("An image behind the text, cut to a square: a file, an http(s) URL, asset:ID or camera[:SPEC].", valueName: "SOURCE"))
    var image: String?

    @Option(name: .long, help: ArgumentHelp("Where the square crop of the image centres, each 0 to 1 (default 0.5,0.5).", valueName: "X,Y"))
    var focus: String?

    @Option(name: .long, help: ArgumentHelp("circle, round-rect, round-rect:RADIUS (pixels, or N%) or square.", valueName: "SHAPE"))
    var shape: String?

    @Option(name: .long, help: ArgumentHelp("The side in pixels, 1 to 4096 (default 500).", valueName: "N"))
    var size: Int?

    @Option(name: .customLong("text-color"), help: ArgumentHelp("auto (black or white, whichever reads better over the pixels under the text) or a colour.", valueName: "C"))
    var textColor: String?

    @Option(name: .long, help: ArgumentHelp("What JPEG's corners are filled with (default white).", valueName: "C"))
    var matte: String?

    func validate() throws {
        let backgrounds = [color, gradient, image].compactMap { $0 }
        guard backgrounds.count <= 1 else { throw ValidationError("give one of --color, --gradient and --image, not several") }
        guard !(initialsFromName && literal) else { throw ValidationError("--initials-from-name and --literal contradict each other: give one") }
        if let size, !ProfileImage.sizes.contains(size) {
            throw ValidationError("--size \(size) is out of range: 1 to 4096 pixels")
        }
        if let focus, FocusPoint(parsing: focus) == nil { throw ValidationError("--focus \(focus): give X,Y, each 0 to 1 (0.5,0.5 is the middle)") }
        if focus != nil && image == nil { throw ValidationError("--focus places the crop of an --image: give --image too") }
        if let message = checkValues() { throw ValidationError(message) }
        if let image { _ = try ImageSourceArgument(image) }
    }

    /// -o FILE: named, and in a format told by its extension.
    static func checkOutput(_ output: String) throws {
        guard !output.isEmpty else { throw ValidationError("-o: the file name is empty") }
        guard RenderedAvatar.Format(fileExtension: (output as NSString).pathExtension) != nil else {
            throw ValidationError("cannot tell the format of \(output) from its name: end it in .png, .jpg, .jpeg or .webp")
        }
    }

    /// The first value that does not parse, in words.
    func checkValues() -> String? {
        let result = Result { () throws(GpickError) in
            if let color { _ = try AvatarColor.parse(color, option: "--color") }
            if let gradient { _ = try Self.gradientColours(gradient) }
            if let textColor, textColor != "auto" { _ = try AvatarColor.parse(textColor, option: "--text-color") }
            if let matte { _ = try AvatarColor.parse(matte, option: "--matte") }
            if let shape { _ = try AvatarShape(parsing: shape, size: size ?? 500, option: "--shape") }
        }
        if case .failure(let e) = result { return e.message }
        return nil
    }

    static func gradientColours(_ text: String) throws(GpickError) -> (AvatarColor, AvatarColor) {
        // Split on the comma between colours, not inside rgb(…).
        var depth = 0, cut: String.Index?
        for i in text.indices {
            switch text[i] {
            case "(": depth += 1
            case ")": depth -= 1
            case "," where depth == 0: if cut == nil { cut = i }
            default: break
            }
        }
        guard let cut else { throw GpickError(.usage, "--gradient \(text): give two colours, C1,C2 (top, bottom)") }
        return (try AvatarColor.parse(String(text[..<cut]), option: "--gradient"),
                try AvatarColor.parse(String(text[text.index(after: cut)...]), option: "--gradient"))
    }

    /// `model` with the given options applied (the image only as a reference; it is loaded later).
    func applied(to start: ProfileImage) throws(GpickError) -> ProfileImage {
        var m = start
        if let size { m.size = size }
        if let text { m.text = text }
        if initialsFromName { m.textMode = .initials }
        if literal { m.textMode = .literal }
        if let color { m.setColor(try AvatarColor.parse(color, option: "--color")) }
        if let gradient {
            let (top, bottom) = try Self.gradientColours(gradient)
            m.setGradient(top, bottom)
        }
        if let shape { m.shape = try AvatarShape(parsing: shape, size: m.size, option: "--shape") }
        if let textColor { m.textColor = textColor == "auto" ? nil : try AvatarColor.parse(textColor, option: "--text-color") }
        if let matte { m.matte = try AvatarColor.parse(matte, option: "--matte") }
        return m
    }
}
