// gpicky4mdec, the element. Pulled (a file, through decodebin's typefind), each frame is two
// reads: its FRAME line, then its bytes into a buffer of the pool agreed downstream (gpick's
// source stage offers one that keeps few idle buffers). Pushed (a pipe, a stream), frames are
// gathered from what arrives, as y4mdec does. Either way, a layout that differs from GStreamer's
// default (rows padded to 4 bytes) is copied once into a pooled buffer.
#include "y4m_reader.h"
#include "y4m_element.h"

typedef struct {
    GstElementClass parent;
} GpickY4mDecClass;

GType gpick_y4m_dec_get_type(void);
GST_DEBUG_CATEGORY(gpick_y4m_debug);
G_DEFINE_TYPE(GpickY4mDec, gpick_y4m_dec, GST_TYPE_ELEMENT)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("application/x-yuv4mpeg, y4mversion = (int) 2"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_SOMETIMES,
    GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE("{ I420, Y41B, Y42B, Y444, GRAY8, I420_10LE, I422_10LE, Y444_10LE, "
                                        "I420_12LE, I422_12LE, Y444_12LE, GRAY16_LE }")));

static void reset(GpickY4mDec *self) {
    self->have_header = FALSE;
    self->index = 0;
    self->offset = 0;
    self->send_segment = TRUE;
    self->seek_seqnum = GST_SEQNUM_INVALID;
    gst_segment_init(&self->segment, GST_FORMAT_TIME);
    gst_adapter_clear(self->adapter);
    if (self->pool) {
        gst_buffer_pool_set_active(self->pool, FALSE);
        gst_clear_object(&self->pool);
    }
    gst_clear_buffer(&self->scratch);
    if (self->srcpad) {
        gst_element_remove_pad(GST_ELEMENT(self), self->srcpad);
        self->srcpad = NULL;
    }
}

static gboolean src_event(GstPad *pad, GstObject *parent, GstEvent *event);
static gboolean src_query(GstPad *pad, GstObject *parent, GstQuery *query);

// The source pad appears once the header is read, as a demuxer's do: decodebin (and any
// pad-added handler) links it and blocks it before the first frame is sent. An always-present pad
// that a pulling element starts sending on as it activates races decodebin, which looks at such
// pads only after the element is PAUSED: a first frame sent to a pad not linked yet ends the stream.
void y4m_add_src_pad(GpickY4mDec *self) {
    if (self->srcpad) return;
    GstPad *pad = gst_pad_new_from_static_template(&src_template, "src");
    gst_pad_set_event_function(pad, src_event);
    gst_pad_set_query_function(pad, src_query);
    gst_pad_use_fixed_caps(pad);
    gst_pad_set_active(pad, TRUE);
    // Pushed, the stream upstream names; pulled, one of the element's own.
    GstEvent *start = gst_pad_get_sticky_event(self->sinkpad, GST_EVENT_STREAM_START, 0);
    if (!start) {
        gchar *id = gst_pad_create_stream_id(pad, GST_ELEMENT(self), NULL);
        start = gst_event_new_stream_start(id);
        gst_event_set_group_id(start, gst_util_group_id_next());
        g_free(id);
    }
    gst_pad_store_sticky_event(pad, start);
    gst_event_unref(start);
    self->srcpad = pad;
    gst_element_add_pad(GST_ELEMENT(self), pad);
    gst_element_no_more_pads(GST_ELEMENT(self));
}

static gboolean sink_event(GstPad *pad, GstObject *parent, GstEvent *event) {
    GpickY4mDec *self = (GpickY4mDec *)parent;
    switch (GST_EVENT_TYPE(event)) {
        case GST_EVENT_CAPS:     // the header gives the caps
        case GST_EVENT_SEGMENT:  // in bytes: the element sends its own, in time
            gst_event_unref(event);
            return TRUE;
        case GST_EVENT_FLUSH_STOP:
            gst_adapter_clear(self->adapter);
            self->send_segment = TRUE;
            break;
        case GST_EVENT_STREAM_START:  // sent on by the source pad, once it is there
            gst_event_unref(event);
            return TRUE;
        case GST_EVENT_EOS:
            if (!self->srcpad) {
                GST_ELEMENT_ERROR(self, STREAM, DECODE, ("The YUV4MPEG2 stream ended before its header."), (NULL));
                gst_event_unref(event);
                return TRUE;
            }
            break;
        default: break;
    }
    return gst_pad_event_default(pad, parent, event);
}

// MARK: downstream's questions

static gboolean src_event(GstPad *pad, GstObject *parent, GstEvent *event) {
    GpickY4mDec *self = (GpickY4mDec *)parent;
    if (GST_EVENT_TYPE(event) == GST_EVENT_SEEK) {
        // Pulled, any flushing seek in time; pushed, none (the bytes before cannot be read again).
        gboolean done = self->pulls && y4m_seek_pulled(self, event);
        gst_event_unref(event);
        return done;
    }
    return gst_pad_event_default(pad, parent, event);
}

static gboolean src_query(GstPad *pad, GstObject *parent, GstQuery *query) {
    GpickY4mDec *self = (GpickY4mDec *)parent;
    GstFormat format;
    switch (GST_QUERY_TYPE(query)) {
        case GST_QUERY_DURATION: {
            gst_query_parse_duration(query, &format, NULL);
            gint64 bytes = 0;
            if (format != GST_FORMAT_TIME || !self->have_header || !gst_pad_peer_query_duration(self->sinkpad, GST_FORMAT_BYTES, &bytes)) break;
            guint64 per_frame = y4m_frame_bytes(self);
            guint64 frames = bytes > (gint64)self->first_frame ? ((guint64)bytes - self->first_frame) / per_frame : 0;
            gst_query_set_duration(query, GST_FORMAT_TIME, (gint64)y4m_frame_time(self, frames));
            return TRUE;
        }
        case GST_QUERY_SEEKING:
            gst_query_parse_seeking(query, &format, NULL, NULL, NULL);
            if (format != GST_FORMAT_TIME) break;
            gst_query_set_seeking(query, GST_FORMAT_TIME, self->pulls, 0, -1);
            return TRUE;
        default: break;
    }
    return gst_pad_query_default(pad, parent, query);
}

// MARK: the element

static gboolean sink_activate(GstPad *pad, GstObject *parent) {
    (void)parent;
    GstQuery *query = gst_query_new_scheduling();
    gboolean pull = gst_pad_peer_query(pad, query) && gst_query_has_scheduling_mode_with_flags(query, GST_PAD_MODE_PULL, GST_SCHEDULING_FLAG_SEEKABLE);
    gst_query_unref(query);
    return gst_pad_activate_mode(pad, pull ? GST_PAD_MODE_PULL : GST_PAD_MODE_PUSH, TRUE);
}

static gboolean sink_activate_mode(GstPad *pad, GstObject *parent, GstPadMode mode, gboolean active) {
    GpickY4mDec *self = (GpickY4mDec *)parent;
    switch (mode) {
        case GST_PAD_MODE_PULL:
            if (!active) return gst_pad_stop_task(pad);
            self->pulls = TRUE;
            return gst_pad_start_task(pad, (GstTaskFunction)y4m_loop, pad, NULL);
        case GST_PAD_MODE_PUSH:
            if (active) self->pulls = FALSE;
            return TRUE;
        default: return FALSE;
    }
}

static GstStateChangeReturn change_state(GstElement *element, GstStateChange transition) {
    GpickY4mDec *self = (GpickY4mDec *)element;
    if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) reset(self);
    GstStateChangeReturn r = GST_ELEMENT_CLASS(gpick_y4m_dec_parent_class)->change_state(element, transition);
    if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) reset(self);
    return r;
}

static void gpick_y4m_dec_init(GpickY4mDec *self) {
    self->sinkpad = gst_pad_new_from_static_template(&sink_template, "sink");
    gst_pad_set_activate_function(self->sinkpad, sink_activate);
    gst_pad_set_activatemode_function(self->sinkpad, sink_activate_mode);
    gst_pad_set_chain_function(self->sinkpad, y4m_chain);
    gst_pad_set_event_function(self->sinkpad, sink_event);
    gst_element_add_pad(GST_ELEMENT(self), self->sinkpad);
    self->adapter = gst_adapter_new();
    reset(self);
}

static void finalize(GObject *object) {
    GpickY4mDec *self = (GpickY4mDec *)object;
    reset(self);
    g_object_unref(self->adapter);
    G_OBJECT_CLASS(gpick_y4m_dec_parent_class)->finalize(object);
}

static void gpick_y4m_dec_class_init(GpickY4mDecClass *klass) {
    G_OBJECT_CLASS(klass)->finalize = finalize;
    GstElementClass *element = GST_ELEMENT_CLASS(klass);
    element->change_state = change_state;
    gst_element_class_add_static_pad_template(element, &sink_template);
    gst_element_class_add_static_pad_template(element, &src_template);
    gst_element_class_set_static_metadata(element, "YUV4MPEG2 reader", "Codec/Demuxer/Decoder/Video",
        "Reads a YUV4MPEG2 stream frame by frame, pulled into pooled buffers where it can be", "gpick");
}

// MARK: the shim's calls

int gpick_y4mdec_register(guint rank) {
    static gsize once;
    static int registered;
    if (g_once_init_enter(&once)) {
        GST_DEBUG_CATEGORY_INIT(gpick_y4m_debug, "gpicky4mdec", 0, "gpick's YUV4MPEG2 reader");
        registered = gst_element_register(NULL, "gpicky4mdec", rank, gpick_y4m_dec_get_type());
        g_once_init_leave(&once, 1);
    }
    return registered;
}

int gpick_y4mdec_is(GstElement *element) {
    return element && G_TYPE_CHECK_INSTANCE_TYPE(element, gpick_y4m_dec_get_type());
}

int gpick_y4mdec_pulls(GstElement *element) {
    return gpick_y4mdec_is(element) && ((GpickY4mDec *)element)->pulls;
}
