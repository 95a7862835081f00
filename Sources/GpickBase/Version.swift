/// gpick's version, as both executables report it and as the thumbnail cache records it (the
/// `Software` key and the `fail/gpick-VERSION/` folder).
package enum GpickVersion {
    package static let current = "0.1.0"
}
