// Frames pulled from the source: each one its FRAME line, then its bytes read into a buffer of
// the pool (or, for a layout to copy, into a scratch buffer kept for the next frame); and a
// flushing seek in time, from the frame at or before it.
#include "y4m_element.h"

#include <string.h>

// The line at `offset`, at most LINE_MAX_BYTES long: its length without the newline in `*length`,
// the bytes in `*buffer` (mapped in `map`). GST_FLOW_EOS at the end of the file.
static GstFlowReturn pull_line(GpickY4mDec *self, guint64 offset, GstBuffer **buffer, GstMapInfo *map, gsize *length) {
    *buffer = NULL;
    GstFlowReturn r = gst_pad_pull_range(self->sinkpad, offset, LINE_MAX_BYTES, buffer);
    if (r != GST_FLOW_OK) return r;
    if (!gst_buffer_map(*buffer, map, GST_MAP_READ)) {
        gst_clear_buffer(buffer);
        return GST_FLOW_ERROR;
    }
    if (map->size == 0) {
        gst_buffer_unmap(*buffer, map);
        gst_clear_buffer(buffer);
        return GST_FLOW_EOS;
    }
    const char *newline = memchr(map->data, '\n', map->size);
    *length = newline ? (gsize)(newline - (const char *)map->data) : map->size + 1;
    return GST_FLOW_OK;
}

static GstFlowReturn read_header(GpickY4mDec *self) {
    GstBuffer *buffer;
    GstMapInfo map;
    gsize length;
    GstFlowReturn r = pull_line(self, 0, &buffer, &map, &length);
    if (r != GST_FLOW_OK) return r;
    const char *why = "its header line has no end";
    gboolean ok = length <= map.size && y4m_parse_header((const char *)map.data, length, &self->stream, &why);
    gst_buffer_unmap(buffer, &map);
    gst_buffer_unref(buffer);
    if (!ok) {
        GST_ELEMENT_ERROR(self, STREAM, DECODE, ("Not a YUV4MPEG2 stream gpick can read: %s.", why), (NULL));
        return GST_FLOW_ERROR;
    }
    self->first_frame = self->offset = length + 1;
    self->have_header = TRUE;
    if (!y4m_negotiate(self)) return GST_FLOW_NOT_NEGOTIATED;
    return GST_FLOW_OK;
}

static GstFlowReturn read_frame(GpickY4mDec *self) {
    GstBuffer *line;
    GstMapInfo map;
    gsize length;
    GstFlowReturn r = pull_line(self, self->offset, &line, &map, &length);
    if (r != GST_FLOW_OK) return r;
    gboolean frame = length <= map.size && y4m_is_frame_line((const char *)map.data, length);
    gboolean whole = length <= map.size;
    gst_buffer_unmap(line, &map);
    gst_buffer_unref(line);
    if (!frame) {
        // A last frame cut short leaves a partial line at the end: the file ends there.
        if (!whole) return GST_FLOW_EOS;
        GST_ELEMENT_ERROR(self, STREAM, DECODE, ("The YUV4MPEG2 stream has no FRAME line at byte %" G_GUINT64_FORMAT ".", self->offset), (NULL));
        return GST_FLOW_ERROR;
    }
    if (self->frame_line == 0) self->frame_line = (guint)length + 1;
    guint64 data = self->offset + length + 1;
    gsize size = self->stream.packed.size;
    // A last frame cut short: a read into a buffer of our own past the file's end does not
    // always come back shorter (basesrc fills what there is), so the file's length decides.
    gint64 end = -1;
    if (gst_pad_peer_query_duration(self->sinkpad, GST_FORMAT_BYTES, &end) && end >= 0 && data + size > (guint64)end) return GST_FLOW_EOS;
    // The pool's buffer (ours), or the scratch buffer the frame is copied out of (kept).
    GstBuffer *target = NULL;
    if (self->stream.same_layout) {
        r = gst_buffer_pool_acquire_buffer(self->pool, &target, NULL);
        if (r != GST_FLOW_OK) return r;
    } else {
        if (!self->scratch) self->scratch = gst_buffer_new_allocate(NULL, size, NULL);
        target = self->scratch;
    }
    GstBuffer *filled = target;
    r = gst_pad_pull_range(self->sinkpad, data, (guint)size, &filled);
    if (r == GST_FLOW_OK && gst_buffer_get_size(filled) < size) r = GST_FLOW_EOS;  // cut short
    if (self->stream.same_layout && (r != GST_FLOW_OK || filled != target)) gst_buffer_unref(target);
    if (r != GST_FLOW_OK) {
        if (filled && filled != target) gst_buffer_unref(filled);
        return r;
    }
    if (filled == target && !self->stream.same_layout) gst_buffer_ref(filled);
    self->offset = data + size;
    return y4m_push_frame(self, filled);
}

static void pause_with(GpickY4mDec *self, GstFlowReturn r) {
    GST_DEBUG_OBJECT(self, "pausing at frame %" G_GUINT64_FORMAT ": %s", self->index, gst_flow_get_name(r));
    gst_pad_pause_task(self->sinkpad);
    if (!self->srcpad) {
        // No header read: an empty file says so; a header gpick cannot read has said why.
        if (r == GST_FLOW_EOS) GST_ELEMENT_ERROR(self, STREAM, DECODE, ("The YUV4MPEG2 stream ended before its header."), (NULL));
    } else if (r == GST_FLOW_EOS) {
        if (self->segment.flags & GST_SEGMENT_FLAG_SEGMENT) {
            gst_element_post_message(GST_ELEMENT(self), gst_message_new_segment_done(GST_OBJECT(self), GST_FORMAT_TIME, (gint64)self->segment.position));
            gst_pad_push_event(self->srcpad, gst_event_new_segment_done(GST_FORMAT_TIME, (gint64)self->segment.position));
        } else {
            gst_pad_push_event(self->srcpad, gst_event_new_eos());
        }
    } else if (r == GST_FLOW_NOT_LINKED || r < GST_FLOW_EOS) {
        if (r != GST_FLOW_ERROR) GST_ELEMENT_FLOW_ERROR(self, r);
        gst_pad_push_event(self->srcpad, gst_event_new_eos());
    }
}

void y4m_loop(GstPad *pad) {
    GpickY4mDec *self = (GpickY4mDec *)GST_PAD_PARENT(pad);
    GstFlowReturn r = GST_FLOW_OK;
    if (!self->have_header) r = read_header(self);
    if (r == GST_FLOW_OK) r = read_frame(self);
    if (r != GST_FLOW_OK) pause_with(self, r);
}

// A flushing seek in time: the frame at or before its start, then on from there.
gboolean y4m_seek_pulled(GpickY4mDec *self, GstEvent *event) {
    gdouble rate;
    GstFormat format;
    GstSeekFlags flags;
    GstSeekType start_type, stop_type;
    gint64 start, stop;
    gst_event_parse_seek(event, &rate, &format, &flags, &start_type, &start, &stop_type, &stop);
    if (format != GST_FORMAT_TIME || rate <= 0 || !self->have_header || !(flags & GST_SEEK_FLAG_FLUSH)) return FALSE;
    guint32 seqnum = gst_event_get_seqnum(event);
    GstEvent *flush = gst_event_new_flush_start();
    gst_event_set_seqnum(flush, seqnum);
    gst_pad_push_event(self->srcpad, flush);
    gst_pad_pause_task(self->sinkpad);
    GST_PAD_STREAM_LOCK(self->sinkpad);
    flush = gst_event_new_flush_stop(TRUE);
    gst_event_set_seqnum(flush, seqnum);
    gst_pad_push_event(self->srcpad, flush);
    gboolean update;
    gst_segment_do_seek(&self->segment, rate, format, flags, start_type, (guint64)start, stop_type, (guint64)stop, &update);
    const GstVideoInfo *out = &self->stream.out;
    guint64 index = gst_util_uint64_scale(self->segment.start, (guint64)GST_VIDEO_INFO_FPS_N(out), GST_SECOND * (guint64)GST_VIDEO_INFO_FPS_D(out));
    self->index = index;
    // Every FRAME line taken as long as the first.
    self->offset = self->first_frame + index * y4m_frame_bytes(self);
    self->segment.start = self->segment.time = self->segment.position = y4m_frame_time(self, index);
    self->send_segment = TRUE;
    self->seek_seqnum = seqnum;
    gst_pad_start_task(self->sinkpad, (GstTaskFunction)y4m_loop, self->sinkpad, NULL);
    GST_PAD_STREAM_UNLOCK(self->sinkpad);
    return TRUE;
}
