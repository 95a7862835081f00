// A YUV4MPEG2 stream header, and the layout of its frames (mjpegtools' yuv4mpeg(5)).
#ifndef GPICK_Y4M_HEADER_H
#define GPICK_Y4M_HEADER_H

#include <gst/video/video.h>

typedef struct {
    // The frames as GStreamer lays them out by default (strides rounded up), with the stream's
    // rate, pixel aspect ratio and interlacing: the caps the element sends.
    GstVideoInfo out;
    // The same frames as they lie in the file: planes one after the other, rows unpadded.
    GstVideoInfo packed;
    // Whether the two layouts are the same, so a frame read from the file is already in place.
    gboolean same_layout;
} y4m_stream;

/// Parses the header line `line` (`length` bytes, without its newline). FALSE, with a short
/// reason in `why` (static text), when it is not one gpick can read.
gboolean y4m_parse_header(const char *line, gsize length, y4m_stream *stream, const char **why);

/// Whether `line` (`length` bytes, without its newline) starts a frame: "FRAME", then nothing or
/// a space and the frame's own parameters, which are not used.
gboolean y4m_is_frame_line(const char *line, gsize length);

#endif
