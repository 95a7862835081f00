import CGStreamer
import FoundationEssentials
import Glibc
import GstCore

/// The display a window preview would open on, from the environment.
public struct WindowDisplay: Sendable, Equatable {
    public enum System: String, Sendable { case wayland, x11 }
    /// The window systems to try, in order (XWayland sessions have both).
    public var systems: [(System, String)] { zip(order, names).map { ($0, $1) } }
    private var order: [System] = []
    private var names: [String] = []

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let w = environment["WAYLAND_DISPLAY"], !w.isEmpty { order.append(.wayland); names.append(w) }
        if let x = environment["DISPLAY"], !x.isEmpty { order.append(.x11); names.append(x) }
    }

    public var isAvailable: Bool { !order.isEmpty }
    /// "wayland-0", ":99", or "wayland-0 and :0".
    public var description: String { names.joined(separator: " and ") }
    public var x11Name: String? { zip(order, names).first { $0.0 == .x11 }?.1 }

    public static func == (a: WindowDisplay, b: WindowDisplay) -> Bool { a.order == b.order && a.names == b.names }
}

/// What choosing a window sink found: each candidate tried, in order, and why it was refused.
public struct WindowSinkReport: Sendable {
    public struct Attempt: Sendable {
        public var factory: String
        /// nil: it opened the display (and was chosen).
        public var failure: String?
        /// The Debian package that provides it (to install it, or to name it).
        public var package: String?
        public var installed: Bool
    }
    public var display: WindowDisplay
    public var attempts: [Attempt] = []
    /// The sink that works, if any.
    public var chosen: String? { attempts.first { $0.failure == nil }?.factory }

    /// One line: why no window can be shown, naming what was tried and the packages to install.
    public var failure: GpickError? {
        guard chosen == nil else { return nil }
        guard display.isAvailable else {
            return GpickError(.device, "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); the terminal and HTTP previews still work")
        }
        let tried = attempts.map { a in "\(a.factory): \(a.failure ?? "?")" }.joined(separator: "; ")
        var packages: [String] = []
        for a in attempts where !a.installed { if let p = a.package, !packages.contains(p) { packages.append(p) } }
        let install = packages.isEmpty ? "" : "; install \(packages.joined(separator: " or ")) (apt-get install \(packages.joined(separator: " ")))"
        return GpickError(.plugin, "no window sink works on display \(display.description) (tried \(tried))\(install); the terminal and HTTP previews still work")
    }
}

/// Chooses a window preview's video sink from a fixed preference list that fits the session:
/// on Wayland the file's wayland list, on X11 its x11 list. Each candidate is made and brought
/// to READY against the display (that opens the display, and xvimagesink checks for XVideo), then
/// back to NULL; the first that works is used. Nothing else is ever probed, so a sink that
/// crashes when it cannot work (dfbvideosink) is never touched.
public enum WindowSinkChooser {
    public static func probe(_ sinks: PipelineFile.WindowSinks,
                             display: WindowDisplay = WindowDisplay()) -> (WindowSinkReport, Element?) {
        var report = WindowSinkReport(display: display)
        guard (try? Gst.initialize()) != nil else { return (report, nil) }
        nameProgram()
        var tried = Set<String>()
        for (system, _) in display.systems {
            for factory in system == .wayland ? sinks.wayland : sinks.x11 where tried.insert(factory).inserted {
                let package = ElementPackages.package(for: factory)
                guard let element = try? Element.make(factory) else {
                    report.attempts.append(.init(factory: factory, failure: "not installed", package: package, installed: false))
                    continue
                }
                do {
                    try element.probeState(.ready)
                    report.attempts.append(.init(factory: factory, failure: nil, package: package, installed: true))
                    return (report, element)
                } catch {
                    report.attempts.append(.init(factory: factory, failure: reason(error), package: package, installed: true))
                }
            }
        }
        return (report, nil)
    }

    /// The chosen sink, or the one-line reason there is none.
    public static func choose(_ sinks: PipelineFile.WindowSinks,
                              display: WindowDisplay = WindowDisplay()) throws(GpickError) -> (Element, WindowSinkReport) {
        let (report, element) = probe(sinks, display: display)
        guard let element else { throw report.failure ?? GpickError(.plugin, "GStreamer does not initialise") }
        return (element, report)
    }

    /// The element's own message, lower-cased at the start and without a final full stop.
    private static func reason(_ e: GStreamerError) -> String {
        var m = e.message.trimmed()
        if m.hasSuffix(".") { m.removeLast() }
        guard let first = m.first else { return "refused the display" }
        return first.lowercased() + m.dropFirst()
    }

    /// xvimagesink and ximagesink title their windows with the program's name.
    private static func nameProgram() {
        if g_get_prgname() == nil { g_set_prgname("gpick") }
    }
}
