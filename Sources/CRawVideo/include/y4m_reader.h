// gpicky4mdec: a YUV4MPEG2 file read one frame at a time, each frame's bytes read by the source
// straight into a buffer of a pool that is used again, where y4mdec gathers every frame out of
// 4 KiB reads (decodebin's typefind pulls that much at a time) into a new block of its own.
#ifndef GPICK_Y4M_READER_H
#define GPICK_Y4M_READER_H

#include <gst/gst.h>

/// Registers the element "gpicky4mdec" once per process, at `rank` (the first call's): above
/// y4mdec's SECONDARY, decodebin takes it for "application/x-yuv4mpeg". 1 when registered.
int gpick_y4mdec_register(guint rank);

/// Whether `element` is a gpicky4mdec.
int gpick_y4mdec_is(GstElement *element);

/// Whether the element reads its frames by pulling them from its source (1) or from buffers
/// pushed to it (0): pulled, each frame is one read into a pooled buffer.
int gpick_y4mdec_pulls(GstElement *element);

#endif
