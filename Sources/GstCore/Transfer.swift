/// How a C function hands over an object reference, as gstreamer-rs spells it out.
public enum Transfer: Sendable {
    /// A floating reference (`gst_element_factory_make`, `gst_parse_launch`): we sink it.
    case floating
    /// A full reference (`gst_bin_get_by_name`, `gst_element_get_bus`): we adopt it.
    case full
    /// A borrowed reference (transfer none): we take our own.
    case none
}
