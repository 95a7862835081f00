// libc helpers Swift cannot call directly (variadic or GNU-only). Tiny, static inline, prefixed.
#ifndef CGPICKBASE_SHIM_H
#define CGPICKBASE_SHIM_H

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>
#include <linux/stat.h>
#include <malloc.h>

/// Names the calling thread for debuggers and `top -H` (15 bytes kept; prctl is variadic).
static inline void cgpick_name_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

/// Blocks of `bytes` and more get their own mapping and go back to the system when freed. glibc
/// raises that threshold by itself after each large free (up to 32 MiB), and the decoded pictures
/// it then keeps in the heap stay in the process's memory; setting it fixes it.
static inline int cgpick_return_large_blocks(size_t bytes) { return mallopt(M_MMAP_THRESHOLD, (int)bytes); }

/// ThreadSanitizer's happens-before annotations, for synchronisation it cannot see (futexes
/// inside Synchronization.Mutex and GLib, hand-offs through GStreamer). Weak: without the
/// sanitizer runtime they are absent and these do nothing.
void __tsan_acquire(void *addr) __attribute__((weak));
void __tsan_release(void *addr) __attribute__((weak));
static inline void cgpick_tsan_acquire(const void *addr) { if (__tsan_acquire) __tsan_acquire((void *)addr); }
static inline void cgpick_tsan_release(const void *addr) { if (__tsan_release) __tsan_release((void *)addr); }

/// What the media library needs of a file: identity, size, mtime and, where the file system
/// keeps it, the birth time (when the file arrived). statx is GNU-only in glibc's headers, so
/// it is called through syscall(2), which is variadic.
typedef struct {
    unsigned long long dev, ino, size;
    unsigned int mode;
    long long mtime_ns;
    long long btime;  // seconds; 0 when the file system does not say
} cgpick_file_info;

static inline int cgpick_statx(int dirfd, const char *name, int nofollow, cgpick_file_info *out) {
    struct statx sx;
    if (syscall(SYS_statx, dirfd, name, nofollow ? AT_SYMLINK_NOFOLLOW : 0, STATX_BASIC_STATS | STATX_BTIME, &sx) != 0) return -1;
    out->dev = ((unsigned long long)sx.stx_dev_major << 32) | sx.stx_dev_minor;
    out->ino = sx.stx_ino;
    out->size = sx.stx_size;
    out->mode = sx.stx_mode;
    out->mtime_ns = (long long)sx.stx_mtime.tv_sec * 1000000000LL + sx.stx_mtime.tv_nsec;
    out->btime = (sx.stx_mask & STATX_BTIME) ? (long long)sx.stx_btime.tv_sec : 0;
    return 0;
}

#endif
