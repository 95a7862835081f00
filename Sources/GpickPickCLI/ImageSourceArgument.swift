import ArgumentParser
import Foundation
import GpickBase
import GpickImages
import GpickKit
import GpickLibrary

/// What a SOURCE argument names (`gpick thumb`, `gpick avatar --image`): a file, an http(s) URL, an asset of the library's index, or a camera.
package enum ImageSourceArgument: Sendable {
    case file(String)
    case url(String)
    case asset(Int64)
    /// `camera` (the default camera) or `camera:SPEC` (any camera `--source` takes elsewhere).
    case camera(String)

    package static let supported = "give a photo or video file, an http(s) URL, asset:ID or camera[:SPEC]"

    package init(_ text: String) throws(ValidationError) {
        guard !text.isEmpty else { throw ValidationError("SOURCE is empty: \(Self.supported)") }
        if text.hasPrefix("asset:") {
            guard let id = Int64(text.dropFirst("asset:".count)), id > 0 else {
                throw ValidationError("\(text): an asset id is a whole number, as `gpick library list` shows")
            }
            self = .asset(id)
            return
        }
        if text == "camera" || text.hasPrefix("camera:") {
            let spec = text == "camera" ? "auto" : String(text.dropFirst("camera:".count))
            do { _ = try SourceSpec.parse(spec) } catch {
                throw ValidationError("\(text): \(error.message) (a file named \(text): ./\(text))")
            }
            self = .camera(spec)
            return
        }
        if URLImageSource.accepts(text) {
            self = .url(text)
            return
        }
        if let scheme = Self.urlScheme(text) {
            throw ValidationError("\(text): \(scheme) URLs are not supported: \(Self.supported)")
        }
        self = .file(text)
    }

    /// "https" of "https://host/a.jpg": `scheme://`, as RFC 3986 spells a scheme.
    package static func urlScheme(_ text: String) -> String? {
        guard let colon = text.range(of: "://") else { return nil }
        let scheme = text[..<colon.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return String(scheme)
    }

    /// Runs `body` with the source open: a camera's session is started first and stopped after,
    /// whatever `body` does.
    package func withSource<T>(environment: [String: String], thumbnails: ThumbnailCache,
                       _ body: (any ImageSource) async throws(GpickError) -> T) async throws(GpickError) -> T {
        switch self {
        case .file(let path):
            return try await body(FileImageSource(path: path, thumbnails: thumbnails))
        case .url(let url):
            return try await body(URLImageSource(url: url))
        case .asset(let id):
            let indexPath = LibraryPaths.indexPath(environment: environment)
            guard fileStatus(indexPath) != nil else {
                throw GpickError(.input, "no asset \(id) in the library: it has no index yet (`gpick library scan` makes one)")
            }
            let index = try await OffPool.run { () throws(GpickError) in try LibraryIndex.open(path: indexPath) }
            let source = try await AssetImageSource.open(id: id, index: index, thumbnails: thumbnails)
            return try await naming { () async throws(GpickError) in try await body(source) }
        case .camera(let spec):
            var configuration = SessionConfiguration()
            configuration.source = try SourceSpec.parse(spec, patterns: configuration.library.testPatterns)
            let session = CaptureSession(configuration)
            do {
                try await session.start()
                let result = try await body(CameraImageSource(session: session))
                await session.stop()
                return result
            } catch {
                await session.stop()
                throw error
            }
        }
    }

    /// Runs `work`, its errors naming the asset they are about (they name its file already).
    func naming<T>(_ work: () async throws(GpickError) -> T) async throws(GpickError) -> T {
        do {
            return try await work()
        } catch {
            guard case .asset(let id) = self, !error.message.hasPrefix("asset:") else { throw error }
            var e = error
            e.message = "asset:\(id): \(e.message)"
            throw e
        }
    }
}
