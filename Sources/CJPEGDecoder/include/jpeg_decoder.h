// gpickjpegdec: a webcam's MJPEG frames decoded with libjpeg-turbo, stopping (unlike GStreamer's
// jpegdec) at libjpeg's corrupt-data warnings and at coefficients no 8-bit JPEG holds: a damaged
// frame is found by the decoding itself, in one pass, and dropped instead of shown grey or smeared.
#ifndef GPICK_JPEG_DECODER_H
#define GPICK_JPEG_DECODER_H

#include <gst/gst.h>

/// Registers the element "gpickjpegdec" once per process, at `rank` (the first call's; at
/// GStreamer's PRIMARY, decodebin takes it before jpegdec, the same rank, whose name sorts after,
/// and after any hardware JPEG decoder ranked above). libjpeg (libjpeg.so.62) is opened with
/// dlopen here; without it nothing is registered and 0 is returned (jpegdec decodes then). 1 when
/// the element is there.
int gpick_jpegdec_register(guint rank);

/// Whether `element` is a gpickjpegdec.
int gpick_jpegdec_is(GstElement *element);

/// Why a frame was dropped: libjpeg's corrupt-data warning or error, or the coefficient check's.
typedef void (*gpick_jpegdec_damaged_fn)(void *context, const char *reason);

/// Calls `fn` on the streaming thread for each frame the element drops as damaged, until the
/// element is freed (then `release(context)`). A later call replaces the watcher (releasing the
/// earlier one). `fn` must not block.
void gpick_jpegdec_watch(GstElement *element, gpick_jpegdec_damaged_fn fn, void *context,
                         void (*release)(void *context));

/// Frames the element dropped as damaged so far.
guint64 gpick_jpegdec_damaged(GstElement *element);

#endif
