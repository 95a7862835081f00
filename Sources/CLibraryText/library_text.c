// GLib's and GStreamer's own warnings (waylandsink's "Could not bind to zwp_linux_dmabuf_v1",
// twice per window preview on weston) are not the user's business unless they ask: --verbose,
// GPICK_VERBOSE=1 (how verbosity reaches gpick-library and gpick-avatar, which gpick execs or
// spawns), or their own G_MESSAGES_DEBUG or GST_DEBUG (GStreamer's debug log writes to fd 2).
// - gpick's GLib log writer drops library messages from every thread of the process; a fatal
//   one (the process is about to abort) still reaches the user. It is C: GLib calls it on any
//   thread, before the Swift runtime is up.
// - fd 2 becomes /dev/null, for what does not go through GLib (libjpeg, libpng) and for children
//   that share stderr (gst-plugin-scanner, which GStreamer spawns). gpick's own lines go to a
//   copy of the user's stderr.
#include "library_text.h"
#include <fcntl.h>
#include <glib.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int shown = 1;
static atomic_int user_stderr = 2;
static atomic_flag installed = ATOMIC_FLAG_INIT;

static int set(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static GLogWriterOutput writer(GLogLevelFlags level, const GLogField *fields, gsize n, gpointer data) {
    if (atomic_load(&shown)) return g_log_writer_default(level, fields, n, data);
    if (!(level & (G_LOG_FLAG_FATAL | G_LOG_LEVEL_ERROR))) return G_LOG_WRITER_HANDLED;
    gchar *text = g_log_writer_format_fields(level, fields, n, FALSE);
    size_t length = strlen(text);
    ssize_t w = write(atomic_load(&user_stderr), text, length);
    w = write(atomic_load(&user_stderr), "\n", 1);
    (void)w;
    g_free(text);
    return G_LOG_WRITER_HANDLED;
}

void gpick_library_text_begin(int show) {
    if (atomic_flag_test_and_set(&installed)) return;
    show = show || set("GPICK_VERBOSE") || set("G_MESSAGES_DEBUG") || set("GST_DEBUG");
    atomic_store(&shown, show);
    g_log_set_writer_func(writer, NULL, NULL);
    if (show) return;
    int copy = fcntl(2, F_DUPFD_CLOEXEC, 3);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (copy >= 0 && null >= 0 && dup2(null, 2) >= 0) {
        atomic_store(&user_stderr, copy);
    } else if (copy >= 0) {
        close(copy);
    }
    if (null >= 0) close(null);
}

void gpick_library_text_show(void) {
    if (atomic_exchange(&shown, 1)) return;
    // The copy stays open (and in use for gpick's lines): another thread may be writing to it.
    int copy = atomic_load(&user_stderr);
    if (copy != 2) dup2(copy, 2);
}

int gpick_library_text_shown(void) { return atomic_load(&shown); }

int gpick_library_text_stderr(void) { return atomic_load(&user_stderr); }
