import CGStreamer
import Glibc
import GstCore

/// Titles a sink's own X11 window. glimagesink names its window "OpenGL renderer" and ignores
/// title tags, so gpick sets WM_NAME and _NET_WM_NAME itself, on a display connection of its own.
/// libX11 and libgstgl are looked up at run time (the GL sink has already loaded both): gpick
/// does not link them, so commands without a window pay nothing. (xvimagesink and ximagesink
/// title their windows with the program name, which the chooser sets.)
enum WindowTitle {
    private typealias OpenDisplay = @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    private typealias InternAtom = @convention(c) (OpaquePointer?, UnsafePointer<CChar>, Int32) -> UInt
    private typealias ChangeProperty = @convention(c) (OpaquePointer?, UInt, UInt, UInt, Int32, Int32, UnsafePointer<UInt8>, Int32) -> Int32
    private typealias DisplayCall = @convention(c) (OpaquePointer?) -> Int32
    private typealias ErrorHandler = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32
    private typealias SetErrorHandler = @convention(c) (ErrorHandler?) -> ErrorHandler?
    private typealias Sync = @convention(c) (OpaquePointer?, Int32) -> Int32
    private typealias GetWindow = @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
    private typealias GetHandle = @convention(c) (UnsafeMutableRawPointer?) -> UInt

    /// Sets the title of `sink`'s window, if it is a GL sink drawing into a window of its own on
    /// X11. Returns whether it did.
    @discardableResult
    static func set(_ title: String, onGLSink sink: Element, display: String) -> Bool {
        guard let handle = glWindowHandle(sink), handle != 0 else { return false }
        return setX11(title, window: handle, display: display)
    }

    /// The X11 window id of a GL sink's window (GstGLContext → GstGLWindow → handle).
    private static func glWindowHandle(_ sink: Element) -> UInt? {
        guard sink.hasProperty("context"), let gl = dlopen("libgstgl-1.0.so.0", RTLD_LAZY | RTLD_NOLOAD),
              let getWindow = symbol(gl, "gst_gl_context_get_window", as: GetWindow.self),
              let getHandle = symbol(gl, "gst_gl_window_get_window_handle", as: GetHandle.self) else { return nil }
        defer { dlclose(gl) }
        guard let context = cgst_object_get_object(UnsafeMutableRawPointer(sink.pointer), "context") else { return nil }
        defer { gst_object_unref(context) }
        guard let window = getWindow(context) else { return nil }
        defer { gst_object_unref(window) }
        return getHandle(window)
    }

    private static func setX11(_ title: String, window: UInt, display: String) -> Bool {
        guard let x = dlopen("libX11.so.6", RTLD_LAZY),
              let open = symbol(x, "XOpenDisplay", as: OpenDisplay.self),
              let intern = symbol(x, "XInternAtom", as: InternAtom.self),
              let change = symbol(x, "XChangeProperty", as: ChangeProperty.self),
              let sync = symbol(x, "XSync", as: Sync.self),
              let setHandler = symbol(x, "XSetErrorHandler", as: SetErrorHandler.self),
              let close = symbol(x, "XCloseDisplay", as: DisplayCall.self) else { return false }
        defer { dlclose(x) }
        guard let dpy = display.withCString({ open($0) }) else { return false }
        defer { _ = close(dpy) }
        // Xlib's default error handler exits the process: a window closed at this very moment
        // (BadWindow) must not end gpick. The errors of these requests arrive by XSync, under
        // a handler that ignores them; the previous handler comes back right after.
        let previous = setHandler { _, _ in 0 }
        defer { _ = setHandler(previous) }
        let utf8 = intern(dpy, "UTF8_STRING", 0), netName = intern(dpy, "_NET_WM_NAME", 0)
        let wmName = UInt(39), stringType = UInt(31)  // XA_WM_NAME, XA_STRING: predefined atoms
        let bytes = Array(title.utf8)
        let replace: Int32 = 0  // PropModeReplace
        _ = change(dpy, window, wmName, stringType, 8, replace, bytes, Int32(bytes.count))
        _ = change(dpy, window, netName, utf8, 8, replace, bytes, Int32(bytes.count))
        _ = sync(dpy, 0)
        return true
    }

    private static func symbol<T>(_ library: UnsafeMutableRawPointer, _ name: String, as: T.Type) -> T? {
        dlsym(library, name).map { unsafeBitCast($0, to: T.self) }
    }
}
