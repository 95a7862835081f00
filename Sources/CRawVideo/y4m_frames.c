// What both ways of reading share: the caps and pool, each frame's time and its hand-over; and
// frames gathered from pushed buffers (a pipe, a stream that cannot be pulled from), as y4mdec
// gathers them.
#include "y4m_element.h"

#include <string.h>

GstClockTime y4m_frame_time(GpickY4mDec *self, guint64 index) {
    const GstVideoInfo *out = &self->stream.out;
    return gst_util_uint64_scale(index, GST_SECOND * (guint64)GST_VIDEO_INFO_FPS_D(out), (guint64)GST_VIDEO_INFO_FPS_N(out));
}

// Before the first FRAME line is read, taken as "FRAME\n" (yuv4mpeg(5) files carry no frame
// parameters).
guint64 y4m_frame_bytes(GpickY4mDec *self) { return (self->frame_line ? self->frame_line : 6) + self->stream.packed.size; }

// Sends the caps of the header just read, and takes the pool downstream offers for them (or
// makes one) from the allocation query.
gboolean y4m_negotiate(GpickY4mDec *self) {
    y4m_add_src_pad(self);
    GstCaps *caps = gst_video_info_to_caps(&self->stream.out);
    gboolean ok = gst_pad_push_event(self->srcpad, gst_event_new_caps(caps));
    GstQuery *query = gst_query_new_allocation(caps, TRUE);
    GstBufferPool *pool = NULL;
    guint size = (guint)GST_VIDEO_INFO_SIZE(&self->stream.out), min = 0, max = 0;
    if (ok && gst_pad_peer_query(self->srcpad, query) && gst_query_get_n_allocation_pools(query) > 0) {
        gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
    }
    gst_query_unref(query);
    if (!pool) pool = gst_video_buffer_pool_new();
    size = MAX(size, (guint)GST_VIDEO_INFO_SIZE(&self->stream.out));
    GstStructure *config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, size, min, max);
    if (!gst_buffer_pool_set_config(pool, config)) {
        // A pool that would not take the caps: one of our own instead.
        gst_object_unref(pool);
        pool = gst_video_buffer_pool_new();
        config = gst_buffer_pool_get_config(pool);
        gst_buffer_pool_config_set_params(config, caps, size, min, max);
        ok = ok && gst_buffer_pool_set_config(pool, config);
    }
    GST_DEBUG_OBJECT(self, "caps %" GST_PTR_FORMAT " sent: %d, pool %" GST_PTR_FORMAT, caps, ok, pool);
    gst_caps_unref(caps);
    ok = ok && gst_buffer_pool_set_active(pool, TRUE);
    if (self->pool) gst_buffer_pool_set_active(self->pool, FALSE);
    gst_clear_object(&self->pool);
    self->pool = pool;
    return ok;
}

static void send_segment_if_due(GpickY4mDec *self) {
    if (!self->send_segment) return;
    GstEvent *event = gst_event_new_segment(&self->segment);
    if (self->seek_seqnum != GST_SEQNUM_INVALID) gst_event_set_seqnum(event, self->seek_seqnum);
    gst_pad_push_event(self->srcpad, event);
    self->send_segment = FALSE;
}

// Timestamps the frame and sends it, copied first into a pooled buffer when the file's layout
// is not GStreamer's. Takes `frame`.
GstFlowReturn y4m_push_frame(GpickY4mDec *self, GstBuffer *frame) {
    GstBuffer *out = frame;
    if (!self->stream.same_layout) {
        out = NULL;
        GstFlowReturn r = gst_buffer_pool_acquire_buffer(self->pool, &out, NULL);
        if (r != GST_FLOW_OK) {
            gst_buffer_unref(frame);
            return r;
        }
        GstVideoFrame from, to;
        gboolean copied = FALSE;
        if (gst_video_frame_map(&from, &self->stream.packed, frame, GST_MAP_READ)) {
            if (gst_video_frame_map(&to, &self->stream.out, out, GST_MAP_WRITE)) {
                copied = gst_video_frame_copy(&to, &from);
                gst_video_frame_unmap(&to);
            }
            gst_video_frame_unmap(&from);
        }
        gst_buffer_unref(frame);
        if (!copied) {
            gst_buffer_unref(out);
            GST_ELEMENT_ERROR(self, STREAM, DECODE, ("A frame of the YUV4MPEG2 stream could not be copied."), (NULL));
            return GST_FLOW_ERROR;
        }
    }
    GstClockTime pts = y4m_frame_time(self, self->index);
    if (GST_CLOCK_TIME_IS_VALID(self->segment.stop) && pts >= self->segment.stop) {
        gst_buffer_unref(out);
        return GST_FLOW_EOS;
    }
    GST_BUFFER_PTS(out) = pts;
    GST_BUFFER_DTS(out) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION(out) = y4m_frame_time(self, self->index + 1) - pts;
    GST_BUFFER_OFFSET(out) = self->index;
    if (self->send_segment) GST_BUFFER_FLAG_SET(out, GST_BUFFER_FLAG_DISCONT);  // the first since a segment
    self->index++;
    self->segment.position = pts;
    send_segment_if_due(self);
    return gst_pad_push(self->srcpad, out);
}

// Frames gathered from the buffers that arrive (a pipe, a stream that cannot be pulled from).
GstFlowReturn y4m_chain(GstPad *pad, GstObject *parent, GstBuffer *buffer) {
    (void)pad;
    GpickY4mDec *self = (GpickY4mDec *)parent;
    gst_adapter_push(self->adapter, buffer);
    for (;;) {
        gsize available = gst_adapter_available(self->adapter), peek = MIN(available, LINE_MAX_BYTES);
        if (peek == 0) return GST_FLOW_OK;
        const char *data = gst_adapter_map(self->adapter, peek);
        const char *newline = memchr(data, '\n', peek);
        gsize length = newline ? (gsize)(newline - data) : 0;
        const char *why = "its header line has no end";
        gboolean ok = newline && (self->have_header ? y4m_is_frame_line(data, length) : y4m_parse_header(data, length, &self->stream, &why));
        gst_adapter_unmap(self->adapter);
        if (!newline && peek < LINE_MAX_BYTES) return GST_FLOW_OK;  // the line's end is still to come
        if (!ok && !self->have_header) {
            GST_ELEMENT_ERROR(self, STREAM, DECODE, ("Not a YUV4MPEG2 stream gpick can read: %s.", why), (NULL));
            return GST_FLOW_ERROR;
        }
        if (!ok) {
            GST_ELEMENT_ERROR(self, STREAM, DECODE, ("The YUV4MPEG2 stream has no FRAME line after frame %" G_GUINT64_FORMAT ".", self->index), (NULL));
            return GST_FLOW_ERROR;
        }
        if (!self->have_header) {
            gst_adapter_flush(self->adapter, length + 1);
            self->first_frame = length + 1;
            self->have_header = TRUE;
            if (!y4m_negotiate(self)) return GST_FLOW_NOT_NEGOTIATED;
            continue;
        }
        gsize size = self->stream.packed.size;
        if (available < length + 1 + size) return GST_FLOW_OK;
        if (self->frame_line == 0) self->frame_line = (guint)length + 1;
        gst_adapter_flush(self->adapter, length + 1);
        GstFlowReturn r = y4m_push_frame(self, gst_adapter_take_buffer(self->adapter, size));
        if (r != GST_FLOW_OK) return r;
    }
}
