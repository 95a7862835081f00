// Starts GStreamer's initialisation (loading the plugin registry: the largest fixed cost of a
// one-shot command, ~15 ms) on a thread of its own as soon as the executable is loaded: before
// the Swift runtime, argument parsing and pipeline files, which then run beside it.
// gst_init_check is idempotent and serialised by GStreamer's own lock, so Gst.initialize() later
// waits for this call (or, if it failed or this thread could not start, does the work itself and
// reports the error).
#define _GNU_SOURCE  // pthread_setname_np
#include "gpick_startup.h"
#include "library_text.h"
#include <gst/gst.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int gpick_init_started;
static int gpick_malloc_bounded;

// What stays of a heap in free chunks between its blocks is resident until malloc gives it back,
// and a recording that runs for days frees and allocates a part's worth of blocks every part:
// the heap's blocks in use stayed flat (11-12 MiB, mallinfo2) while its free chunks grew from
// 3.5 to 8.7 MiB in 80 s of 0.5 s parts, and RSS with them. Every ten seconds the free pages of
// every arena go back to the system (malloc_trim, about a millisecond): over 5 minutes of 1 s
// parts, RSS 3.4 MiB lower on average (63.6 against 67.0). Pages only partly free stay, so RSS
// still creeps (61 to 64 MiB over those minutes).
#define GPICK_TRIM_SECONDS 10

static void *gpick_startup_init(void *unused) {
    (void)unused;
    gst_init_check(NULL, NULL, NULL);
    if (!gpick_malloc_bounded) return NULL;
    pthread_setname_np(pthread_self(), "gpick.trim");
    for (;;) {
        sleep(GPICK_TRIM_SECONDS);
        malloc_trim(0);
    }
    return NULL;
}

// The Swift runtime's own override of CommandLine.arguments (exported by libswiftCore).
extern void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc);

// `gpick library …`, `gpick thumb …` and `gpick pick …` run gpick-library, and `gpick avatar …`
// runs gpick-avatar, each beside gpick or in PREFIX/libexec/gpick (PickHalf.swift): handed over here, before
// GStreamer or the Swift runtime start, they cost gpick nothing. When this exec fails, gpick
// starts as usual and PickHalf.exec tries again and says why, in words.
static const char *gpick_startup_helper(const char *command) {
    if (strcmp(command, "library") == 0 || strcmp(command, "thumb") == 0 || strcmp(command, "pick") == 0) return "/gpick-library";
    if (strcmp(command, "avatar") == 0) return "/gpick-avatar";
    return NULL;
}

static void gpick_startup_hand_over(int argc, char **argv) {
    const char *helper = argc >= 2 ? gpick_startup_helper(argv[1]) : NULL;
    if (!helper) return;
    char tool[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", tool, sizeof tool - 1);
    if (n <= 0) return;
    tool[n] = 0;
    char *slash = strrchr(tool, '/');
    // Beside gpick (a build), or in PREFIX/libexec/gpick beside PREFIX/bin (an install).
    if (!slash || (size_t)(slash - tool) + strlen("/../libexec/gpick") + strlen(helper) + 1 > sizeof tool) return;
    strcpy(slash, helper);
    if (access(tool, X_OK) != 0) {
        strcpy(slash, "/../libexec/gpick");
        strcat(slash, helper);
    }
    char *first = argv[0];
    argv[0] = tool;
    execv(tool, argv);
    argv[0] = first;
}

// Whether the command line asks for --verbose (before a "--"). Parsing confirms it later; here it
// decides whether library text is kept off stderr from the first plugin loaded on.
static int gpick_startup_verbose(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) return 0;
        if (strcmp(argv[i], "--verbose") == 0) return 1;
    }
    return 0;
}

// glibc's malloc moves its mmap threshold up to the size of the largest block freed, so once a
// frame-sized buffer (1.4 MB at 720p) is freed, later ones come from the heap and its arenas,
// where each new recording part's encoder and threads leave them fragmented: RSS rose ~4 MiB a
// part, 111 to 193 MiB over a 20-minute soak (bench S1), one arena or sixteen alike. A fixed
// threshold (128 KiB, glibc's own default) keeps such blocks in mmap, given back when freed, and
// two arenas bound what threads hold: the same record --split then stays flat. A user's own
// GLIBC_TUNABLES or MALLOC_ settings win.
static void gpick_startup_malloc(void) {
    const char *tunables = getenv("GLIBC_TUNABLES");
    if ((tunables && strstr(tunables, "malloc")) || getenv("MALLOC_ARENA_MAX") || getenv("MALLOC_MMAP_THRESHOLD_")) return;
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_ARENA_MAX, 2);
    gpick_malloc_bounded = 1;  // and the startup thread trims the heap (above)
}

// GLib 2.74 (Debian 12) hands GStreamer's small objects out of its own slabs (GSlice), whose
// pages stay while any object on them lives, cached in magazines per thread: the trim above
// cannot give them back. With plain malloc, which GSlice is from GLib 2.76 on, a watch making a
// clip every 30 s at 720p held 0.8 MiB less, and its RSS grew +0.08 MiB/hour from the first
// minute against +0.61. GLib sets GSlice up in its own initialisers, before any of gpick's
// constructors: this runs before all of them, from the executable's preinit array (libc has not
// set `environ` yet, so the environment is read from envp). A user's G_SLICE wins.
static void gpick_startup_preinit(int argc, char **argv, char **envp) {
    (void)argc;
    (void)argv;
    for (char **e = envp; e && *e; e++) {
        if (strncmp(*e, "G_SLICE=", 8) == 0) return;
    }
    // Deprecated with GSlice itself (GLib 2.76), where it is the default it asks for.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    g_slice_set_config(G_SLICE_CONFIG_ALWAYS_MALLOC, TRUE);
#pragma GCC diagnostic pop
}
__attribute__((section(".preinit_array"), used)) static void (*const gpick_preinit)(int, char **, char **) = gpick_startup_preinit;

// glibc passes (argc, argv, envp) to the executable's initialisers.
__attribute__((constructor(101))) static void gpick_startup_begin(int argc, char **argv, char **envp) {
    (void)envp;
    // libcamera logs INFO and WARN lines to stderr whenever its device provider looks for
    // cameras (`auto`, `devices`, an avatar's or the picker's camera); gpick reports what matters
    // in its own words. Set before the hand-over, so gpick-library and gpick-avatar inherit it.
    // A user's own LIBCAMERA_LOG_LEVELS wins.
    setenv("LIBCAMERA_LOG_LEVELS", "*:FATAL", 0);
    gpick_startup_hand_over(argc, argv);
    gpick_startup_malloc();
    // The static Swift runtime finds argv next to the process's original environment block; the
    // setenv calls below move the environment to the heap, and CommandLine.arguments came out
    // empty in release builds (every command printed the top-level help). Hand it argv first.
    _swift_stdlib_overrideUnsafeArgvArgc(argv, argc);
    // In an X11 session (no Wayland display) GStreamer's GL sink would try Wayland first, and
    // libwayland prints an error of its own when XDG_RUNTIME_DIR is unset. Set before any thread.
    const char *x11 = getenv("DISPLAY"), *wayland = getenv("WAYLAND_DISPLAY");
    if (x11 && *x11 && !(wayland && *wayland)) setenv("GST_GL_WINDOW", "x11", 0);
    // After the hand-over (the helpers do this themselves), before GStreamer's first thread.
    gpick_library_text_begin(gpick_startup_verbose(argc, argv));
    pthread_t thread;
    if (pthread_create(&thread, NULL, gpick_startup_init, NULL) == 0) {
        pthread_detach(thread);
        gpick_init_started = 1;
    }
}

int gpick_startup_init_started(void) { return gpick_init_started; }
