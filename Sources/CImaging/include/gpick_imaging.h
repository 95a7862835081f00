#ifndef GPICK_IMAGING_H
#define GPICK_IMAGING_H
#include <stdint.h>

/// A planar I420 image (Y full size, U and V at half width and height, rounded up).
typedef struct {
    uint8_t *planes[3];
    int strides[3];
    int width;
    int height;
} gpick_i420;

/// Blurred placeholder: downscale `src` by `factor` (box average), blur the small image
/// (`radius` in small pixels), upscale bilinearly into `dst` (same size as src), mirrored
/// horizontally when `mirror` is non-zero. Returns 0, or -1 for bad arguments / no memory.
int gpick_placeholder_i420(const gpick_i420 *src, gpick_i420 *dst, int factor, int radius, int mirror);

/// Crossfade: dst = a × (256 − alpha) / 256 + b × alpha / 256, per sample, alpha 0…256.
/// All three images have the same size; dst may alias a or b.
void gpick_blend_i420(const gpick_i420 *a, const gpick_i420 *b, gpick_i420 *dst, int alpha);

#endif
