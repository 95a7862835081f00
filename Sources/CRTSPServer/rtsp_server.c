// A tiny shim over gst-rtsp-server: its set-up calls are varargs, signals and GLib sources, which
// Swift cannot make; what to serve and what to push stays on the Swift side.
//
// The library is opened with dlopen on first use, not linked: gpick starts without loading it
// (and the RTSP, SDP and network libraries it pulls in), and where it is not installed gpick
// still runs, `doctor` names the package, and `serve` says what is missing.
#include "rtsp_server.h"

#include <dlfcn.h>
#include <gst/rtsp-server/rtsp-server.h>

static void *rtsp_library(void) {
    static void *handle;
    void *h = __atomic_load_n(&handle, __ATOMIC_ACQUIRE);
    if (!h) {
        h = dlopen("libgstrtspserver-1.0.so.0", RTLD_NOW | RTLD_GLOBAL);
        if (h) __atomic_store_n(&handle, h, __ATOMIC_RELEASE);
    }
    return h;
}

// The function `name` of gst-rtsp-server, found once per call site (a race only finds it twice).
#define RTSP(name) ({ \
    static __typeof__(&name) found_; \
    __typeof__(&name) f_ = __atomic_load_n(&found_, __ATOMIC_ACQUIRE); \
    if (!f_) { f_ = (__typeof__(&name))dlsym(rtsp_library(), #name); __atomic_store_n(&found_, f_, __ATOMIC_RELEASE); } \
    f_; })

int gpick_rtsp_available(void) {
    return rtsp_library() && dlsym(rtsp_library(), "gst_rtsp_server_new") != NULL;
}

/// Who hears clients come and go. Each client that was told of holds a reference (its "closed"
/// handler can run after the server is freed); `fn` is cleared, under `lock`, before the server
/// is, so no call starts after gpick_rtsp_free returns, and none is running then.
typedef struct {
    GMutex lock;
    gpick_rtsp_client_fn fn;
    void *context;
    void (*release)(void *context);
    gint refs;
} client_watch;

static client_watch *watch_ref(client_watch *w) { g_atomic_int_inc(&w->refs); return w; }

static void watch_unref(gpointer data, GClosure *closure) {
    client_watch *w = data;
    if (!g_atomic_int_dec_and_test(&w->refs)) return;
    if (w->release) w->release(w->context);
    g_mutex_clear(&w->lock);
    g_free(w);
}

static void watch_tell(client_watch *w, int opened, unsigned id, const char *address) {
    g_mutex_lock(&w->lock);
    if (w->fn) w->fn(w->context, opened, id, address);
    g_mutex_unlock(&w->lock);
}

struct gpick_rtsp {
    GstRTSPServer *server;
    GMainContext *context;
    GMainLoop *loop;
    GThread *thread;
    GSource *listener;
    GstRTSPAuth *auth;
    client_watch *watch;
    unsigned next_client;
};

typedef struct {
    gpick_rtsp_media_fn media;
    void *context;
} mount_callbacks;

typedef struct {
    gpick_rtsp_media_fn media;
    void *context;
    GstElement *appsrc;
    GstElement *audio;  // the appsrc named "asrc", when the media has audio
} media_link;

static void client_connected(GstRTSPServer *server, GstRTSPClient *client, gpointer data);

static gpointer run_loop(gpointer data) {
    gpick_rtsp *s = data;
    g_main_context_push_thread_default(s->context);
    g_main_loop_run(s->loop);
    g_main_context_pop_thread_default(s->context);
    return NULL;
}

/// Expired sessions (a client that went away without TEARDOWN) are cleaned every 2 s.
static gboolean clean_sessions(gpointer data) {
    GstRTSPSessionPool *pool = RTSP(gst_rtsp_server_get_session_pool)(data);
    RTSP(gst_rtsp_session_pool_cleanup)(pool);
    g_object_unref(pool);
    return G_SOURCE_CONTINUE;
}

gpick_rtsp *gpick_rtsp_new(const char *address, int port, char *error, size_t error_size, int *code) {
    if (!gpick_rtsp_available()) {
        g_strlcpy(error, "gst-rtsp-server (libgstrtspserver-1.0.so.0) cannot be loaded", error_size);
        *code = 3;
        return NULL;
    }
    gpick_rtsp *s = g_new0(gpick_rtsp, 1);
    s->server = RTSP(gst_rtsp_server_new)();
    RTSP(gst_rtsp_server_set_address)(s->server, address);
    gchar *service = g_strdup_printf("%d", port);
    RTSP(gst_rtsp_server_set_service)(s->server, service);
    g_free(service);
    GError *failure = NULL;
    s->listener = RTSP(gst_rtsp_server_create_source)(s->server, NULL, &failure);
    if (!s->listener) {
        g_strlcpy(error, failure ? failure->message : "cannot listen", error_size);
        // GIO's error domain by its name: G_IO_ERROR would link libgio into gpick for one quark.
        GQuark gio = g_quark_from_static_string("g-io-error-quark");
        *code = g_error_matches(failure, gio, G_IO_ERROR_ADDRESS_IN_USE) ? 1
              : g_error_matches(failure, gio, G_IO_ERROR_PERMISSION_DENIED) ? 2 : 0;
        g_clear_error(&failure);
        g_object_unref(s->server);
        g_free(s);
        return NULL;
    }
    s->context = g_main_context_new();
    s->loop = g_main_loop_new(s->context, FALSE);
    g_source_attach(s->listener, s->context);
    GSource *cleanup = g_timeout_source_new_seconds(2);
    g_source_set_callback(cleanup, clean_sessions, s->server, NULL);
    g_source_attach(cleanup, s->context);
    g_source_unref(cleanup);
    g_signal_connect(s->server, "client-connected", G_CALLBACK(client_connected), s);
    s->thread = g_thread_new("gpick.rtsp", run_loop, s);
    return s;
}

int gpick_rtsp_port(gpick_rtsp *s) { return RTSP(gst_rtsp_server_get_bound_port)(s->server); }

void gpick_rtsp_require(gpick_rtsp *s, const char *user, const char *password) {
    if (!s->auth) {
        s->auth = RTSP(gst_rtsp_auth_new)();
        RTSP(gst_rtsp_auth_set_supported_methods)(s->auth, GST_RTSP_AUTH_DIGEST);
        RTSP(gst_rtsp_server_set_auth)(s->server, s->auth);
    }
    GstRTSPToken *token = RTSP(gst_rtsp_token_new)(GST_RTSP_TOKEN_MEDIA_FACTORY_ROLE, G_TYPE_STRING, "viewer", NULL);
    RTSP(gst_rtsp_auth_add_digest)(s->auth, user, password, token);
    gst_rtsp_token_unref(token);
}

static void media_unprepared(GstRTSPMedia *media, gpointer data) {
    media_link *link = data;
    if (!link->appsrc) return;
    link->media(link->context, link->appsrc, link->audio, 0);
    gst_object_unref(link->appsrc);
    link->appsrc = NULL;
    if (link->audio) gst_object_unref(link->audio);
    link->audio = NULL;
}

/// A viewer starts playing a shared media mid-stream: it needs a keyframe now.
static void play_request(GstRTSPClient *client, GstRTSPContext *ctx, gpointer data) {
    if (!ctx->media) return;
    media_link *link = g_object_get_data(G_OBJECT(ctx->media), "gpick-link");
    if (link && link->appsrc) link->media(link->context, link->appsrc, link->audio, 2);
}

static void client_closed(GstRTSPClient *client, gpointer data) {
    const char *address = g_object_get_data(G_OBJECT(client), "gpick-address");
    unsigned id = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(client), "gpick-id"));
    if (address) watch_tell(data, 0, id, address);
}

static void client_connected(GstRTSPServer *server, GstRTSPClient *client, gpointer data) {
    gpick_rtsp *s = data;
    g_signal_connect(client, "play-request", G_CALLBACK(play_request), NULL);
    client_watch *watch = __atomic_load_n(&s->watch, __ATOMIC_ACQUIRE);
    if (!watch) return;
    // Kept on the client: by "closed" its connection may be gone.
    GstRTSPConnection *connection = RTSP(gst_rtsp_client_get_connection)(client);
    const char *ip = connection ? RTSP(gst_rtsp_connection_get_ip)(connection) : NULL;
    unsigned id = __atomic_add_fetch(&s->next_client, 1, __ATOMIC_RELAXED);
    g_object_set_data_full(G_OBJECT(client), "gpick-address", g_strdup(ip ? ip : "?"), g_free);
    g_object_set_data(G_OBJECT(client), "gpick-id", GUINT_TO_POINTER(id));
    g_signal_connect_data(client, "closed", G_CALLBACK(client_closed), watch_ref(watch), watch_unref, 0);
    watch_tell(watch, 1, id, ip ? ip : "?");
}

void gpick_rtsp_watch_clients(gpick_rtsp *s, gpick_rtsp_client_fn clients, void *context, void (*release)(void *context)) {
    client_watch *w = g_new0(client_watch, 1);
    g_mutex_init(&w->lock);
    w->fn = clients;
    w->context = context;
    w->release = release;
    w->refs = 1;  // the server's
    __atomic_store_n(&s->watch, w, __ATOMIC_RELEASE);
}

static void media_configure(GstRTSPMediaFactory *factory, GstRTSPMedia *media, gpointer data) {
    mount_callbacks *callbacks = data;
    GstElement *element = RTSP(gst_rtsp_media_get_element)(media);
    GstElement *appsrc = gst_bin_get_by_name(GST_BIN(element), "src");
    GstElement *audio = gst_bin_get_by_name(GST_BIN(element), "asrc");
    gst_object_unref(element);
    if (!appsrc) {
        if (audio) gst_object_unref(audio);
        return;
    }
    media_link *link = g_new0(media_link, 1);
    link->media = callbacks->media;
    link->context = callbacks->context;
    link->appsrc = appsrc;
    link->audio = audio;
    g_signal_connect_data(media, "unprepared", G_CALLBACK(media_unprepared), link, (GClosureNotify)g_free, 0);
    g_object_set_data(G_OBJECT(media), "gpick-link", link);
    callbacks->media(callbacks->context, appsrc, audio, 1);
}

void gpick_rtsp_mount(gpick_rtsp *s, const char *path, const char *launch, gpick_rtsp_media_fn media, void *context) {
    GstRTSPMediaFactory *factory = RTSP(gst_rtsp_media_factory_new)();
    RTSP(gst_rtsp_media_factory_set_launch)(factory, launch);
    RTSP(gst_rtsp_media_factory_set_shared)(factory, TRUE);
    // Live: a media whose last client left is torn down, and the next client gets a new one.
    RTSP(gst_rtsp_media_factory_set_suspend_mode)(factory, GST_RTSP_SUSPEND_MODE_NONE);
    RTSP(gst_rtsp_media_factory_set_latency)(factory, 0);
    if (s->auth)
        RTSP(gst_rtsp_media_factory_add_role)(factory, "viewer", GST_RTSP_PERM_MEDIA_FACTORY_ACCESS, G_TYPE_BOOLEAN, TRUE,
                                        GST_RTSP_PERM_MEDIA_FACTORY_CONSTRUCT, G_TYPE_BOOLEAN, TRUE, NULL);
    mount_callbacks *callbacks = g_new0(mount_callbacks, 1);
    callbacks->media = media;
    callbacks->context = context;
    g_signal_connect_data(factory, "media-configure", G_CALLBACK(media_configure), callbacks, (GClosureNotify)g_free, 0);
    GstRTSPMountPoints *mounts = RTSP(gst_rtsp_server_get_mount_points)(s->server);
    RTSP(gst_rtsp_mount_points_add_factory)(mounts, path, factory);
    g_object_unref(mounts);
}

void gpick_rtsp_unmount(gpick_rtsp *s, const char *path) {
    GstRTSPMountPoints *mounts = RTSP(gst_rtsp_server_get_mount_points)(s->server);
    RTSP(gst_rtsp_mount_points_remove_factory)(mounts, path);
    g_object_unref(mounts);
}

static GstRTSPFilterResult count_client(GstRTSPServer *server, GstRTSPClient *client, gpointer data) {
    (*(unsigned *)data)++;
    return GST_RTSP_FILTER_KEEP;
}

unsigned gpick_rtsp_client_count(gpick_rtsp *s) {
    unsigned n = 0;
    GList *kept = RTSP(gst_rtsp_server_client_filter)(s->server, count_client, &n);
    g_list_free_full(kept, g_object_unref);
    return n;
}

static GstRTSPFilterResult close_client(GstRTSPServer *server, GstRTSPClient *client, gpointer data) {
    return GST_RTSP_FILTER_REMOVE;
}

static gboolean quit_loop(gpointer data) {
    g_main_loop_quit(data);
    return G_SOURCE_REMOVE;
}

void gpick_rtsp_free(gpick_rtsp *s) {
    if (s->watch) {
        // From now on nobody hears of clients; a call under way ends before this returns.
        g_mutex_lock(&s->watch->lock);
        s->watch->fn = NULL;
        g_mutex_unlock(&s->watch->lock);
    }
    g_source_destroy(s->listener);
    g_source_unref(s->listener);
    RTSP(gst_rtsp_server_client_filter)(s->server, close_client, NULL);
    GSource *quit = g_idle_source_new();
    g_source_set_callback(quit, quit_loop, s->loop, NULL);
    g_source_attach(quit, s->context);
    g_source_unref(quit);
    g_thread_join(s->thread);
    g_main_loop_unref(s->loop);
    g_main_context_unref(s->context);
    if (s->auth) g_object_unref(s->auth);
    g_object_unref(s->server);
    if (s->watch) watch_unref(s->watch, NULL);
    g_free(s);
}
