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
// - So a crash would say nothing at all: libc's "double free" and GLib's "Aborting" lines go to
//   fd 2, and a segmentation fault prints nothing. While library text is kept off, a fatal signal
//   first writes one line to the user's stderr, then goes on as it would have (a core, the exit
//   status of that signal).
#include "library_text.h"
#include <fcntl.h>
#include <glib.h>
#include <signal.h>
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

// The signals that end a process with a core: each said by name, then handed to what was there.
static const struct { int number; const char *name; } fatal_signals[] = {
    {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"}, {SIGILL, "SIGILL"}, {SIGFPE, "SIGFPE"}, {SIGABRT, "SIGABRT"},
};
#define FATAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction fatal_previous[FATAL_COUNT];

// Under systemd's watchdog (WATCHDOG_USEC set), read once at start: getenv is not safe in a handler.
static int watched = 0;

static void say(int fd, const char *text) {
    ssize_t w = write(fd, text, strlen(text));
    (void)w;
}

static void say_number(int fd, long n) {
    char digits[24];
    size_t at = sizeof digits;
    digits[--at] = 0;
    do { digits[--at] = (char)('0' + n % 10); n /= 10; } while (n > 0 && at > 0);
    say(fd, digits + at);
}

// Async-signal-safe: write(2), getpid(2), sigaction(2) and raise(3) only. The signal is blocked
// while this runs, so the raise is delivered, to the previous action, as soon as it returns (a
// fault that returns here would fault again, with the same result). A signal another process
// sent (kill(1), or systemd's watchdog, whose signal is SIGABRT) is not a crash and says so:
// only then are si_code ≤ 0 and si_pid the sender's.
static void on_fatal_signal(int sig, siginfo_t *info, void *context) {
    (void)context;
    for (size_t i = 0; i < FATAL_COUNT; i++) {
        if (fatal_signals[i].number != sig) continue;
        if (!atomic_load(&shown)) {
            int fd = atomic_load(&user_stderr);
            if (info && info->si_code <= 0 && info->si_pid > 0 && info->si_pid != getpid()) {
                say(fd, "gpick: error: stopped by ");
                say(fd, fatal_signals[i].name);
                say(fd, " from process ");
                say_number(fd, info->si_pid);
                if (watched && sig == SIGABRT) say(fd, ": the watchdog's signal (gpick feeds it only while the camera's frames flow)");
                say(fd, "\n");
            } else {
                say(fd, "gpick: error: crashed (");
                say(fd, fatal_signals[i].name);
                say(fd, "): a bug in gpick or in a library it uses; run the command again with --verbose to see what the libraries said\n");
            }
        }
        sigaction(sig, &fatal_previous[i], NULL);
        raise(sig);
        return;
    }
}

static void say_fatal_signals(void) {
    watched = getenv("WATCHDOG_USEC") != NULL;
    struct sigaction ours;
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_fatal_signal;
    ours.sa_flags = SA_SIGINFO;
    sigemptyset(&ours.sa_mask);
    for (size_t i = 0; i < FATAL_COUNT; i++) sigaction(fatal_signals[i].number, &ours, &fatal_previous[i]);
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
    say_fatal_signals();
}

void gpick_library_text_show(void) {
    if (atomic_exchange(&shown, 1)) return;
    // The copy stays open (and in use for gpick's lines): another thread may be writing to it.
    int copy = atomic_load(&user_stderr);
    if (copy != 2) dup2(copy, 2);
}

int gpick_library_text_shown(void) { return atomic_load(&shown); }

int gpick_library_text_stderr(void) { return atomic_load(&user_stderr); }
