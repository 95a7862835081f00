/* Crossfade of two I420 frames: the switch leads from the placeholder into the new camera. */
#include "imaging_internal.h"

#include <string.h>

/* (a·(256−α) + b·α + 128) >> 8 stays below 2^16, so 16-bit lanes suffice. */
static void blend_row(const uint8_t *a, const uint8_t *b, uint8_t *d, int w, int alpha) {
    const uint16_t wa = (uint16_t)(256 - alpha), wb = (uint16_t)alpha;
    int x = 0;
#if GPICK_VEC
    for (; x + 16 <= w; x += 16) {
        v16u8 va, vb;
        memcpy(&va, a + x, 16);
        memcpy(&vb, b + x, 16);
        v16u16 s = __builtin_convertvector(va, v16u16) * wa + __builtin_convertvector(vb, v16u16) * wb;
        v16u8 r = __builtin_convertvector((s + 128) >> 8, v16u8);
        memcpy(d + x, &r, 16);
    }
#endif
    for (; x < w; x++) d[x] = (uint8_t)((a[x] * wa + b[x] * wb + 128) >> 8);
}

/* Does nothing on invalid arguments or mismatched sizes. Aliasing dst with a or b is fine:
 * each sample is read before it is written, at the same offset. */
void gpick_blend_i420(const gpick_i420 *a, const gpick_i420 *b, gpick_i420 *dst, int alpha) {
    if (!gpick_valid_image(a) || !gpick_valid_image(b) || !gpick_valid_image(dst)) return;
    if (a->width != dst->width || a->height != dst->height || b->width != dst->width || b->height != dst->height)
        return;
    alpha = alpha < 0 ? 0 : alpha > 256 ? 256 : alpha;
    for (int p = 0; p < 3; p++) {
        int w = gpick_plane_w(dst, p), h = gpick_plane_h(dst, p);
        for (int y = 0; y < h; y++)
            blend_row(a->planes[p] + (size_t)y * a->strides[p], b->planes[p] + (size_t)y * b->strides[p],
                      dst->planes[p] + (size_t)y * dst->strides[p], w, alpha);
    }
}
