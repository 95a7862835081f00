/* What placeholder.c and blend.c share: the vector types and the I420 plane geometry. Private to
 * CImaging (not under include/). */
#ifndef GPICK_IMAGING_INTERNAL_H
#define GPICK_IMAGING_INTERNAL_H

#include "gpick_imaging.h"

/* GCC/Clang vector extensions compile to SSE2 on x86-64 and NEON on aarch64 (and to plain scalar
 * code elsewhere). Other compilers, or -DGPICK_IMAGING_NO_VECTOR, use the scalar loops only. */
#if !defined(GPICK_IMAGING_NO_VECTOR) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 9))
#define GPICK_VEC 1
typedef uint16_t v8u16 __attribute__((vector_size(16)));
typedef uint8_t v16u8 __attribute__((vector_size(16)));
typedef uint16_t v16u16 __attribute__((vector_size(32)));
#else
#define GPICK_VEC 0
#endif

static inline int gpick_plane_w(const gpick_i420 *im, int p) { return p == 0 ? im->width : (im->width + 1) / 2; }
static inline int gpick_plane_h(const gpick_i420 *im, int p) { return p == 0 ? im->height : (im->height + 1) / 2; }

static inline int gpick_valid_image(const gpick_i420 *im) {
    if (!im || im->width <= 0 || im->height <= 0) return 0;
    for (int p = 0; p < 3; p++)
        if (!im->planes[p] || im->strides[p] < gpick_plane_w(im, p)) return 0;
    return 1;
}

#endif
