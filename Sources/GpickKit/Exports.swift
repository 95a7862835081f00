// What GpickKit's users get with it: the typed errors, output paths and text helpers of
// GpickBase, and the byte-level formats.
@_exported import GpickBase
@_exported import GpickFormats
