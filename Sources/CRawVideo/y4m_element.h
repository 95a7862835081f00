// gpicky4mdec's state, shared by its files: y4m_reader.c (the element: pads, events, queries),
// y4m_frames.c (caps, the pool, timestamps; frames gathered from pushed buffers) and
// y4m_pulled.c (frames pulled from the source, seeking).
#ifndef GPICK_Y4M_ELEMENT_H
#define GPICK_Y4M_ELEMENT_H

#include "y4m_header.h"

#include <gst/base/gstadapter.h>

GST_DEBUG_CATEGORY_EXTERN(gpick_y4m_debug);
#define GST_CAT_DEFAULT gpick_y4m_debug

// A header or FRAME line is at most this long; longer is not a y4m stream.
#define LINE_MAX_BYTES 1024

typedef struct {
    GstElement parent;
    GstPad *sinkpad, *srcpad;
    gboolean pulls;
    // Streaming thread's state.
    gboolean have_header;
    y4m_stream stream;
    guint64 first_frame;  // offset of the first FRAME line
    guint frame_line;     // the first FRAME line's length, newline included ("FRAME\n": 6)
    guint64 offset;       // pulled: the next FRAME line's offset
    guint64 index;        // the next frame's number from the start
    GstBufferPool *pool;
    GstBuffer *scratch;   // pulled, with a layout to copy: the frame as read
    GstAdapter *adapter;  // pushed
    GstSegment segment;
    gboolean send_segment;
    guint32 seek_seqnum;
} GpickY4mDec;

GstClockTime y4m_frame_time(GpickY4mDec *self, guint64 index);
// A frame's bytes in the file, its FRAME line included.
guint64 y4m_frame_bytes(GpickY4mDec *self);
// Adds the source pad, once (the header read), with its stream-start.
void y4m_add_src_pad(GpickY4mDec *self);
gboolean y4m_negotiate(GpickY4mDec *self);
GstFlowReturn y4m_push_frame(GpickY4mDec *self, GstBuffer *frame);
GstFlowReturn y4m_chain(GstPad *pad, GstObject *parent, GstBuffer *buffer);
void y4m_loop(GstPad *pad);
gboolean y4m_seek_pulled(GpickY4mDec *self, GstEvent *event);

#endif
