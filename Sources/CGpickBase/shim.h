// libc helpers Swift cannot call directly (variadic or GNU-only). Tiny, static inline, prefixed.
#ifndef CGPICKBASE_SHIM_H
#define CGPICKBASE_SHIM_H

#include <sys/prctl.h>

/// Names the calling thread for debuggers and `top -H` (15 bytes kept; prctl is variadic).
static inline void cgpick_name_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

/// ThreadSanitizer's happens-before annotations, for synchronisation it cannot see (futexes
/// inside Synchronization.Mutex and GLib, hand-offs through GStreamer). Weak: without the
/// sanitizer runtime they are absent and these do nothing.
void __tsan_acquire(void *addr) __attribute__((weak));
void __tsan_release(void *addr) __attribute__((weak));
static inline void cgpick_tsan_acquire(const void *addr) { if (__tsan_acquire) __tsan_acquire((void *)addr); }
static inline void cgpick_tsan_release(const void *addr) { if (__tsan_release) __tsan_release((void *)addr); }

#endif
