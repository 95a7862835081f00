// The trimming pool: GstVideoBufferPool with a cap on idle buffers. A buffer returned while
// `keep` others wait idle is marked GST_BUFFER_FLAG_TAG_MEMORY, the flag GstBufferPool itself
// discards a buffer for (do_free_buffer, with its count and its wake-up of waiters), so the base
// class keeps its own books. The idle count is this pool's estimate: set to 0 whenever the
// queue ran dry (a new buffer is allocated then), one more at each kept return, one less at
// each acquire; a race between them errs by a buffer, never by more.
#include "frame_pool.h"

#include <gst/video/video.h>

typedef struct {
    GstVideoBufferPool parent;
    gint keep;
    gint idle;
    guint64 trimmed;
    guint64 allocated;
} GpickFramePool;

typedef struct {
    GstVideoBufferPoolClass parent_class;
} GpickFramePoolClass;

G_DEFINE_TYPE(GpickFramePool, gpick_frame_pool, GST_TYPE_VIDEO_BUFFER_POOL)

static GstFlowReturn frame_pool_alloc(GstBufferPool *pool, GstBuffer **buffer, GstBufferPoolAcquireParams *params) {
    GpickFramePool *self = (GpickFramePool *)pool;
    // Called when no buffer waited: nothing is idle.
    g_atomic_int_set(&self->idle, 0);
    __atomic_add_fetch(&self->allocated, 1, __ATOMIC_RELAXED);
    return GST_BUFFER_POOL_CLASS(gpick_frame_pool_parent_class)->alloc_buffer(pool, buffer, params);
}

static GstFlowReturn frame_pool_acquire(GstBufferPool *pool, GstBuffer **buffer, GstBufferPoolAcquireParams *params) {
    GpickFramePool *self = (GpickFramePool *)pool;
    GstFlowReturn r = GST_BUFFER_POOL_CLASS(gpick_frame_pool_parent_class)->acquire_buffer(pool, buffer, params);
    if (r == GST_FLOW_OK) {
        gint idle = g_atomic_int_get(&self->idle);
        while (idle > 0 && !g_atomic_int_compare_and_exchange(&self->idle, idle, idle - 1)) idle = g_atomic_int_get(&self->idle);
    }
    return r;
}

static void frame_pool_release(GstBufferPool *pool, GstBuffer *buffer) {
    GpickFramePool *self = (GpickFramePool *)pool;
    if (g_atomic_int_get(&self->idle) >= self->keep) {
        GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_TAG_MEMORY);
        __atomic_add_fetch(&self->trimmed, 1, __ATOMIC_RELAXED);
    } else {
        g_atomic_int_inc(&self->idle);
    }
    GST_BUFFER_POOL_CLASS(gpick_frame_pool_parent_class)->release_buffer(pool, buffer);
}

static void gpick_frame_pool_class_init(GpickFramePoolClass *klass) {
    GstBufferPoolClass *pool = GST_BUFFER_POOL_CLASS(klass);
    pool->alloc_buffer = frame_pool_alloc;
    pool->acquire_buffer = frame_pool_acquire;
    pool->release_buffer = frame_pool_release;
}

static void gpick_frame_pool_init(GpickFramePool *self) { (void)self; }

static const char *const pool_key = "gpick-frame-pool";

static GstPadProbeReturn answer_allocation(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
    if (GST_QUERY_TYPE(query) != GST_QUERY_ALLOCATION || gst_query_get_n_allocation_pools(query) > 0) return GST_PAD_PROBE_OK;
    GstCaps *caps = NULL;
    gboolean need_pool = FALSE;
    gst_query_parse_allocation(query, &caps, &need_pool);
    GstVideoInfo video;
    if (!caps || !gst_video_info_from_caps(&video, caps)) return GST_PAD_PROBE_OK;

    GpickFramePool *pool = g_object_new(gpick_frame_pool_get_type(), NULL);
    pool->keep = (gint)GPOINTER_TO_UINT(data);
    GstStructure *config = gst_buffer_pool_get_config(GST_BUFFER_POOL(pool));
    gst_buffer_pool_config_set_params(config, caps, (guint)GST_VIDEO_INFO_SIZE(&video), 0, 0);
    if (!gst_buffer_pool_set_config(GST_BUFFER_POOL(pool), config)) {
        gst_object_unref(pool);
        return GST_PAD_PROBE_OK;
    }
    // min 0, max 0: as many as the stream needs, at any moment; the idle ones are trimmed.
    gst_query_add_allocation_pool(query, GST_BUFFER_POOL(pool), (guint)GST_VIDEO_INFO_SIZE(&video), 0, 0);
    // The pad keeps the newest pool (for its counts); the element that takes it holds its own.
    g_object_set_data_full(G_OBJECT(pad), pool_key, gst_object_ref(pool), gst_object_unref);
    gst_object_unref(pool);
    return GST_PAD_PROBE_HANDLED;
}

void gpick_frame_pool_offer(GstPad *pad, guint keep_idle) {
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, answer_allocation, GUINT_TO_POINTER(keep_idle), NULL);
}

guint64 gpick_frame_pool_trimmed(GstPad *pad) {
    GpickFramePool *pool = g_object_get_data(G_OBJECT(pad), pool_key);
    return pool ? __atomic_load_n(&pool->trimmed, __ATOMIC_RELAXED) : 0;
}

guint64 gpick_frame_pool_allocated(GstPad *pad) {
    GpickFramePool *pool = g_object_get_data(G_OBJECT(pad), pool_key);
    return pool ? __atomic_load_n(&pool->allocated, __ATOMIC_RELAXED) : 0;
}
