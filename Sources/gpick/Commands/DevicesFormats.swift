import ArgumentParser
import GpickBase
import GpickCLI
import GpickKit

/// `gpick devices --formats FILE`: the mode choice asked of a pasted `v4l2-ctl` listing, so
/// "why does my camera run at 5 fps?" has an answer without the camera.
extension Devices {
    func request() throws(GpickError) -> ModeRequest {
        if let mode { return try ModeRequest(parsing: mode) }
        let size = width.flatMap { w in height.map { ModeSize(width: w, height: $0) } }
        return .deliver(size: size, rate: fps.flatMap(ModeRate.parse))
    }

    static func answer(formats path: String, request: ModeRequest, events: Events) throws(GpickError) {
        let listing = try V4L2FormatListing.read(path: path)
        let shown = path == "-" ? "standard input" : path
        let chosen: ModeChoice.Chosen
        do {
            chosen = try ModeChoice.choose(from: listing.offers, for: request)
        } catch {
            throw GpickError(error.kind, "\(shown): \(error.message)", detail: error.detail)
        }
        let m = chosen.mode
        if events.json {
            var fields: JSONFields = [
                "mode": JSONValue(fields: ["format": m.format.fourcc, "width": m.width, "height": m.height, "framerate": m.framerate]),
                "reason": chosen.reason, "request": "\(request)", "modes": listing.offers.map(line),
            ]
            if let card = listing.card { fields["camera"] = card }
            if !listing.skipped.isEmpty { fields["skipped"] = listing.skipped }
            events.emit("mode-chosen", fields)
            return
        }
        print("\(listing.card ?? shown):")
        for l in table(listing.offers, chosen: chosen, indent: "  ") { print(l) }
        if !listing.skipped.isEmpty { print("    not usable by gpick: \(listing.skipped.joined(separator: ", "))") }
        print("\(request == .automatic ? "default" : "for \(request)"): \(m)\(chosen.reason.isEmpty ? "" : " (\(chosen.reason))")")
    }

    /// A camera's modes, one line each, the chosen one marked with *.
    static func table(_ offers: [ModeOffer], chosen: ModeChoice.Chosen, indent: String) -> [String] {
        let m = chosen.mode
        return offers.map { offer in
            let marked = offer.format == m.format && offer.sizes.contains(width: m.width, height: m.height)
            return "\(indent)\(marked ? "*" : " ") \(line(offer))"
        }
    }

    /// What a V4L2 camera that `devices` found offers, and the mode a session given nothing
    /// would run it in: nil when its caps list no mode gpick can take.
    static func modes(of camera: Camera) -> (offers: [ModeOffer], chosen: ModeChoice.Chosen)? {
        guard camera.kind == .v4l2 else { return nil }
        let offers = CapsModes.offers(from: camera.formats)
        guard let chosen = try? ModeChoice.choose(from: offers, for: .automatic) else { return nil }
        return (offers, chosen)
    }

    /// One offer as v4l2-ctl users read it: `MJPG 1920x1080 @ 30, 24, 20, 15 fps`.
    static func line(_ offer: ModeOffer) -> String {
        let size: String
        switch offer.sizes {
        case .discrete(let w, let h): size = "\(w)x\(h)"
        case .stepwise(let w0, let h0, let w1, let h1, let sw, let sh):
            size = "\(w0)x\(h0)…\(w1)x\(h1)" + (sw == 1 && sh == 1 ? "" : " (step \(sw)/\(sh))")
        }
        let rates: String
        switch offer.rates {
        case .discrete(let list): rates = list.map(ModeRate.text).joined(separator: ", ") + " fps"
        case .range(let r): rates = "\(ModeRate.text(r.lowerBound))–\(ModeRate.text(r.upperBound)) fps"
        case .unlisted: rates = "rates not listed"
        }
        return "\(offer.format) \(size) @ \(rates)"
    }
}
