// libwayland-client tells a protocol error ("xdg_surface@14: error 3: xdg_surface has never been
// configured") only through its log, which goes to stderr unless a handler is set. It is looked
// up at run time, as gpick does not link libwayland-client: only a Wayland sink loads it.
#include "wayland_log.h"
#include <dlfcn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef void (*log_handler)(const char *format, va_list args);
static _Atomic(gpick_wayland_error_report) reporter;
static atomic_flag installed = ATOMIC_FLAG_INIT;

static void handler(const char *format, va_list args) {
    char text[512];
    vsnprintf(text, sizeof text, format, args);
    // As libwayland's own handler: the line goes to stderr (which gpick points at /dev/null
    // unless the user asked for library text).
    ssize_t w = write(2, text, strlen(text));
    (void)w;
    // display_handle_error's format: "%s@%u: error %d: %s\n".
    gpick_wayland_error_report report = atomic_load(&reporter);
    if (report && strstr(text, ": error ")) {
        size_t n = strlen(text);
        if (n > 0 && text[n - 1] == '\n') text[n - 1] = 0;
        report(text);
    }
}

int gpick_wayland_watch_errors(gpick_wayland_error_report report) {
    void *library = dlopen("libwayland-client.so.0", RTLD_LAZY | RTLD_NOLOAD);
    if (!library) return 0;
    void (*set)(log_handler) = (void (*)(log_handler))dlsym(library, "wl_log_set_handler_client");
    if (set) {
        atomic_store(&reporter, report);
        if (!atomic_flag_test_and_set(&installed)) set(handler);
    }
    dlclose(library);  // RTLD_NOLOAD took a reference: the sink keeps the library loaded
    return set != 0;
}
