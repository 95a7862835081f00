// libc helpers Swift cannot call directly (variadic or GNU-only). Tiny, static inline, prefixed.
#ifndef CGPICKBASE_SHIM_H
#define CGPICKBASE_SHIM_H

#include <sys/prctl.h>

/// Names the calling thread for debuggers and `top -H` (15 bytes kept; prctl is variadic).
static inline void cgpick_name_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

#endif
