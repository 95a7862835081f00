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

/// Mean Y, U and V (`means`) and detail, the mean step between horizontal luma neighbours, over
/// every other row. Returns 0, or -1 for bad arguments or an image under 2×2.
int gpick_measure_i420(const gpick_i420 *im, double means[3], double *detail);

/// Crossfade: dst = a × (256 − alpha) / 256 + b × alpha / 256, per sample, alpha 0…256.
/// All three images have the same size; dst may alias a or b.
void gpick_blend_i420(const gpick_i420 *a, const gpick_i420 *b, gpick_i420 *dst, int alpha);

/// One decoded picture's Y, Cb and Cr planes: `bits` per sample (above 8, two bytes a sample),
/// chroma subsampled by `1 << chroma_shift_x` across and `1 << chroma_shift_y` down.
typedef struct {
    const uint8_t *planes[3];
    int strides[3];
    int width;
    int height;
    int bits;
    int chroma_shift_x;
    int chroma_shift_y;
    /// ITU-T H.273 matrix coefficients: 1 BT.709, 5 or 6 BT.601, 9 BT.2020; others BT.601.
    int matrix;
    int full_range;
} gpick_ycbcr;

/// Shrinks `in` by `factor` (box average; the last row and column average what there is) and
/// writes it as 8-bit RGB at (`out_x`, `out_y`) of `out`, at most `out_w` × `out_h` pixels.
/// Returns 0, or -1 for bad arguments.
int gpick_ycbcr_box_rgb(const gpick_ycbcr *in, int factor, uint8_t *out, int out_stride, int out_x, int out_y,
                        int out_w, int out_h);

/// Each pixel's distance to the nearest one whose alpha is at least `threshold` (`alpha` read
/// every `pixel_stride` bytes, rows `row_stride` apart), in thirds of a pixel (3-4 chamfer), into
/// `out` (w × h). No such pixel at all: 65535 everywhere.
void gpick_chamfer_distance(const uint8_t *alpha, int pixel_stride, int row_stride, int w, int h, uint8_t threshold,
                            uint16_t *out);

/// The halo's strength at a distance (thirds of a pixel): 1 within `near` pixels, then a
/// smoothstep down to 0 over `falloff` pixels.
double gpick_halo_strength(uint16_t distance, double near, double falloff);

/// Blends `shade` (grey level) over an opaque B, G, R, A canvas at `alpha` × the halo's
/// strength; `alpha_out` (w × h, may be NULL) gets the scrim's alpha, 0–255.
void gpick_halo_blend(uint8_t *bgra, int row_stride, int w, int h, const uint16_t *distance, double near, double falloff,
                      double alpha, uint8_t shade, uint8_t *alpha_out);

#endif
