/// What the avatar editor's calls answer, typed. Keys are the ones `avatar.js` reads.
enum AvatarEditorJSON {
    /// An image the page may show and use, named by the id the server gave it.
    struct Image: Encodable, Sendable {
        var id: String
        var label: String
    }

    /// An upload's or the camera's photo, added.
    struct Added: Encodable, Sendable {
        var image: Image
    }

    /// The library's recent photos; `problem` says why there are none when there is no index.
    struct Library: Encodable, Sendable {
        var assets: [Image]
        var problem: String?
    }

    /// Where Save wrote the avatar and its model.
    struct Saved: Encodable, Sendable {
        var saved: String
        var model: String
    }
}
