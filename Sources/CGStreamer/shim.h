// Helpers for the GStreamer/GLib function-like macros Swift cannot import.
// Every helper is tiny, `static inline` and prefixed `cgst_`; nothing here holds logic.
#ifndef CGSTREAMER_SHIM_H
#define CGSTREAMER_SHIM_H

#include <gst/gst.h>
#include <gst/base/gsttypefindhelper.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/pbutils/pbutils.h>
#include <glib-object.h>

// MARK: casts
static inline GstElement *cgst_element(gpointer p) { return GST_ELEMENT(p); }
static inline GstObject *cgst_object(gpointer p) { return GST_OBJECT(p); }
static inline GstBin *cgst_bin(gpointer p) { return GST_BIN(p); }
// An element's state lock (GST_STATE_LOCK: recursive), held by its state changes and its events.
static inline void cgst_state_lock(GstElement *e) { GST_STATE_LOCK(e); }
static inline void cgst_state_unlock(GstElement *e) { GST_STATE_UNLOCK(e); }
static inline GObject *cgst_gobject(gpointer p) { return G_OBJECT(p); }
static inline GstAppSink *cgst_app_sink(gpointer p) { return GST_APP_SINK(p); }
static inline GstAppSrc *cgst_app_src(gpointer p) { return GST_APP_SRC(p); }
static inline gboolean cgst_is_app_sink(gpointer p) { return GST_IS_APP_SINK(p); }
static inline gboolean cgst_is_app_src(gpointer p) { return GST_IS_APP_SRC(p); }
static inline gboolean cgst_is_bin(gpointer p) { return GST_IS_BIN(p); }
static inline gboolean cgst_is_pipeline(gpointer p) { return GST_IS_PIPELINE(p); }

// MARK: objects
static inline const gchar *cgst_object_name(gpointer p) { return GST_OBJECT_NAME(p); }
static inline gboolean cgst_object_is_floating(gpointer p) { return g_object_is_floating(p); }
static inline GParamSpec *cgst_find_property(gpointer obj, const gchar *name) {
    return g_object_class_find_property(G_OBJECT_GET_CLASS(obj), name);
}
static inline GParamSpec **cgst_list_properties(gpointer obj, guint *n) {
    return g_object_class_list_properties(G_OBJECT_GET_CLASS(obj), n);
}
/// An object-valued property (transfer full: unref it), e.g. glimagesink's "context".
static inline gpointer cgst_object_get_object(gpointer obj, const gchar *name) {
    gpointer value = NULL;
    g_object_get(obj, name, &value, NULL);
    return value;
}
static inline GType cgst_param_value_type(GParamSpec *spec) { return G_PARAM_SPEC_VALUE_TYPE(spec); }
static inline gboolean cgst_param_writable(GParamSpec *spec) { return (spec->flags & G_PARAM_WRITABLE) != 0; }
static inline gboolean cgst_param_readable(GParamSpec *spec) { return (spec->flags & G_PARAM_READABLE) != 0; }
static inline const gchar *cgst_element_factory_name(GstElement *e) {
    GstElementFactory *f = gst_element_get_factory(e);
    return f ? GST_OBJECT_NAME(f) : NULL;
}

// MARK: GValue and GType
static inline GType cgst_value_type(const GValue *v) { return G_VALUE_TYPE(v); }
static inline GType cgst_type_fundamental(GType t) { return G_TYPE_FUNDAMENTAL(t); }
static inline GType cgst_type_boolean(void) { return G_TYPE_BOOLEAN; }
static inline GType cgst_type_int(void) { return G_TYPE_INT; }
static inline GType cgst_type_uint(void) { return G_TYPE_UINT; }
static inline GType cgst_type_int64(void) { return G_TYPE_INT64; }
static inline GType cgst_type_uint64(void) { return G_TYPE_UINT64; }
static inline GType cgst_type_long(void) { return G_TYPE_LONG; }
static inline GType cgst_type_ulong(void) { return G_TYPE_ULONG; }
static inline GType cgst_type_float(void) { return G_TYPE_FLOAT; }
static inline GType cgst_type_double(void) { return G_TYPE_DOUBLE; }
static inline GType cgst_type_string(void) { return G_TYPE_STRING; }
static inline GType cgst_type_enum(void) { return G_TYPE_ENUM; }
static inline GType cgst_type_flags(void) { return G_TYPE_FLAGS; }
static inline GType cgst_type_fraction(void) { return GST_TYPE_FRACTION; }
static inline GType cgst_type_structure(void) { return GST_TYPE_STRUCTURE; }
static inline GType cgst_type_caps(void) { return GST_TYPE_CAPS; }
static inline GType cgst_type_int_range(void) { return GST_TYPE_INT_RANGE; }
static inline GType cgst_type_fraction_range(void) { return GST_TYPE_FRACTION_RANGE; }
static inline GType cgst_type_list(void) { return GST_TYPE_LIST; }
static inline GType cgst_type_array(void) { return GST_TYPE_ARRAY; }

// MARK: messages
static inline GstMessageType cgst_message_type(GstMessage *m) { return GST_MESSAGE_TYPE(m); }
static inline GstObject *cgst_message_src(GstMessage *m) { return GST_MESSAGE_SRC(m); }
static inline const gchar *cgst_message_src_name(GstMessage *m) {
    return GST_MESSAGE_SRC(m) ? GST_OBJECT_NAME(GST_MESSAGE_SRC(m)) : NULL;
}
static inline GstClockTime cgst_message_timestamp(GstMessage *m) { return GST_MESSAGE_TIMESTAMP(m); }
static inline GQuark cgst_resource_error_quark(void) { return GST_RESOURCE_ERROR; }
static inline GQuark cgst_core_error_quark(void) { return GST_CORE_ERROR; }
static inline GQuark cgst_stream_error_quark(void) { return GST_STREAM_ERROR; }
static inline GQuark cgst_library_error_quark(void) { return GST_LIBRARY_ERROR; }
static inline GQuark cgst_parse_error_quark(void) { return GST_PARSE_ERROR; }

/// Posts an ERROR message from `element`, as GST_ELEMENT_ERROR would (the macro cannot be imported).
static inline void cgst_post_error(GstElement *element, GQuark domain, gint code,
                                   const gchar *text, const gchar *debug) {
    gst_element_message_full(element, GST_MESSAGE_ERROR, domain, code,
                             g_strdup(text), g_strdup(debug), __FILE__, GST_FUNCTION, __LINE__);
}

// MARK: registry
static inline GstElementFactoryListType cgst_factory_type_readers(void) {
    return GST_ELEMENT_FACTORY_TYPE_DECODER | GST_ELEMENT_FACTORY_TYPE_DEMUXER;
}

// MARK: state
/// The element's current state, as it last completed a change (no waiting).
static inline GstState cgst_element_current_state(GstElement *e) {
    GST_OBJECT_LOCK(e);
    GstState s = GST_STATE(e);
    GST_OBJECT_UNLOCK(e);
    return s;
}

// MARK: time
static inline GstClockTime cgst_clock_time_none(void) { return GST_CLOCK_TIME_NONE; }
static inline guint64 cgst_second(void) { return GST_SECOND; }

// MARK: debug log
/// gpick's own debug category, "gpick": GST_DEBUG=gpick:5 shows its lines among GStreamer's.
/// Made on first use (GStreamer hands back the same category to every caller of the name).
static inline GstDebugCategory *cgst_gpick_category(void) {
    static GstDebugCategory *category;
    GstDebugCategory *c = __atomic_load_n(&category, __ATOMIC_ACQUIRE);
    if (!c) {
        c = _gst_debug_category_new("gpick", 0, "gpick's own decisions");
        __atomic_store_n(&category, c, __ATOMIC_RELEASE);
    }
    return c;
}
static inline int cgst_gpick_log_enabled(GstDebugLevel level) {
    return gst_debug_category_get_threshold(cgst_gpick_category()) >= level;
}
static inline void cgst_gpick_log(GstDebugLevel level, GObject *object, const char *message) {
    gst_debug_log(cgst_gpick_category(), level, "gpick", "", 0, object, "%s", message);
}

// MARK: navigation (keys pressed in a video sink's window)
#include <gst/video/navigation.h>
/// The key name of a navigation key-press event, or NULL for any other event (borrowed).
static inline const char *cgst_navigation_key_press(GstEvent *e) {
    const gchar *key = NULL;
    if (GST_EVENT_TYPE(e) != GST_EVENT_NAVIGATION) return NULL;
    if (gst_navigation_event_get_type(e) != GST_NAVIGATION_EVENT_KEY_PRESS) return NULL;
    if (!gst_navigation_event_parse_key_event(e, &key)) return NULL;
    return key;
}

// MARK: buffers and probes
static inline GstClockTime cgst_buffer_pts(GstBuffer *b) { return GST_BUFFER_PTS(b); }
static inline GstClockTime cgst_buffer_dts(GstBuffer *b) { return GST_BUFFER_DTS(b); }
static inline GstClockTime cgst_buffer_duration(GstBuffer *b) { return GST_BUFFER_DURATION(b); }
static inline void cgst_buffer_set_pts(GstBuffer *b, GstClockTime t) { GST_BUFFER_PTS(b) = t; }
static inline void cgst_buffer_set_duration(GstBuffer *b, GstClockTime t) { GST_BUFFER_DURATION(b) = t; }
static inline void cgst_buffer_set_dts(GstBuffer *b, GstClockTime t) { GST_BUFFER_DTS(b) = t; }
static inline gboolean cgst_buffer_is_delta(GstBuffer *b) { return GST_BUFFER_FLAG_IS_SET(b, GST_BUFFER_FLAG_DELTA_UNIT); }
static inline GstBuffer *cgst_buffer_ref(GstBuffer *b) { return gst_buffer_ref(b); }
static inline void cgst_buffer_unref(GstBuffer *b) { gst_buffer_unref(b); }
static inline GstSample *cgst_sample_ref(GstSample *s) { return gst_sample_ref(s); }
static inline void cgst_sample_unref(GstSample *s) { gst_sample_unref(s); }
static inline GstCaps *cgst_caps_ref(GstCaps *c) { return gst_caps_ref(c); }
static inline GstCaps *cgst_caps_copy(const GstCaps *c) { return gst_caps_copy(c); }
static inline void cgst_caps_unref(GstCaps *c) { gst_caps_unref(c); }
static inline void cgst_message_unref(GstMessage *m) { gst_message_unref(m); }
static inline void cgst_event_unref(GstEvent *e) { gst_event_unref(e); }

static inline GstPadProbeType cgst_probe_type(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_TYPE(info); }
static inline GstBuffer *cgst_probe_buffer(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_BUFFER(info); }
static inline GstEvent *cgst_probe_event(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_EVENT(info); }
static inline GstEventType cgst_event_type(GstEvent *e) { return GST_EVENT_TYPE(e); }
/// Makes the probed buffer writable in place (the probe info then owns the possibly new buffer).
static inline GstBuffer *cgst_probe_writable_buffer(GstPadProbeInfo *info) {
    GstBuffer *b = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
    GST_PAD_PROBE_INFO_DATA(info) = b;
    return b;
}

// MARK: video info
static inline gint cgst_video_info_width(const GstVideoInfo *i) { return GST_VIDEO_INFO_WIDTH(i); }
static inline gint cgst_video_info_height(const GstVideoInfo *i) { return GST_VIDEO_INFO_HEIGHT(i); }
static inline gint cgst_video_info_fps_n(const GstVideoInfo *i) { return GST_VIDEO_INFO_FPS_N(i); }
static inline gint cgst_video_info_fps_d(const GstVideoInfo *i) { return GST_VIDEO_INFO_FPS_D(i); }
static inline GstVideoFormat cgst_video_info_format(const GstVideoInfo *i) { return GST_VIDEO_INFO_FORMAT(i); }
static inline guint cgst_video_info_n_planes(const GstVideoInfo *i) { return GST_VIDEO_INFO_N_PLANES(i); }
static inline gint cgst_video_info_plane_stride(const GstVideoInfo *i, guint p) { return GST_VIDEO_INFO_PLANE_STRIDE(i, p); }
static inline gsize cgst_video_info_plane_offset(const GstVideoInfo *i, guint p) { return GST_VIDEO_INFO_PLANE_OFFSET(i, p); }
static inline gsize cgst_video_info_size(const GstVideoInfo *i) { return GST_VIDEO_INFO_SIZE(i); }
static inline gint cgst_video_info_comp_height(const GstVideoInfo *i, guint c) { return GST_VIDEO_INFO_COMP_HEIGHT(i, c); }
static inline gint cgst_video_info_comp_width(const GstVideoInfo *i, guint c) { return GST_VIDEO_INFO_COMP_WIDTH(i, c); }
static inline gboolean cgst_video_info_is_yuv(const GstVideoInfo *i) { return GST_VIDEO_INFO_IS_YUV(i); }
static inline gboolean cgst_video_info_is_gray(const GstVideoInfo *i) { return GST_VIDEO_INFO_IS_GRAY(i); }

// MARK: signals
static inline gulong cgst_signal_connect(gpointer instance, const gchar *signal, GCallback cb,
                                        gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, cb, data, destroy, (GConnectFlags)0);
}

#endif
