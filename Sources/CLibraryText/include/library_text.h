#ifndef GPICK_LIBRARY_TEXT_H
#define GPICK_LIBRARY_TEXT_H

/// Keeps what libraries print on their own (GLib's and GStreamer's warnings, libjpeg's, a child
/// such as gst-plugin-scanner) off stderr, unless `show` (or the environment asks for it: see
/// library_text.c). Installs gpick's GLib log writer; call once, first thing in the process.
void gpick_library_text_begin(int show);

/// --verbose, learnt after parsing: library text reaches stderr again, from now on.
void gpick_library_text_show(void);

/// Whether library text is shown.
int gpick_library_text_shown(void);

/// The user's stderr, where gpick's own lines go (2 unless library text is kept off it).
int gpick_library_text_stderr(void);

#endif
