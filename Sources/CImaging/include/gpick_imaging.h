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

/// Whether a baseline JPEG scan's entropy-coded data, `data[start..<end]` (`end`: the marker
/// after it), holds exactly `mcus` MCUs of `nblocks` blocks each, with a restart marker every
/// `restart` MCUs (0: none), every code one its table has, at most 64 coefficients a block, and
/// only 1-bit padding before the marker. `blocks[k]` is block k's DC table << 3 | AC table
/// (tables 0–3 DC, 4–7 AC); the eight tables are flat: `fast` 8 × 256 (first 8 bits → length
/// << 8 | symbol, 0 for longer codes), `maxcode` and `offset` 8 × 17 (by code length), `values`
/// 8 × 256; `both` 8 × 1024: the first 10 bits → a code with its value bits, length | run << 5 |
/// size << 9, where they fit (0: not). Returns 1 when whole, 0 when not. Nothing is decoded.
int gpick_jpeg_scan_whole(const uint8_t *data, long start, long end, const uint16_t *both, const uint16_t *fast, const int32_t *maxcode,
                          const int32_t *offset, const uint8_t *values, const int32_t *blocks, int nblocks, long mcus,
                          int restart);

/// Motion detection's small picture: `plane` (8-bit luma, `width` × `height`, rows `stride`
/// bytes apart) shrunk to `grid_w` × `grid_h` cells, each the mean of a 4 × 4 lattice of samples
/// spread over its cell (16 reads a cell, however large the frame: at 1080p about 0.2 ms).
void gpick_luma_grid(const uint8_t *plane, int stride, int width, int height, uint8_t *grid, int grid_w, int grid_h);

/// The gain that brings `frame` to `background`'s light: the median of background / frame over
/// the watched cells (`mask` 1), so that a person or a car over a part of the scene does not
/// move it. Cells darker than 8 are left out (noise). 1 when nothing is watched.
float gpick_motion_gain(const uint8_t *frame, const float *background, const uint8_t *mask, int n);

/// One step of motion detection over a grid of `n` cells (`w` × `h`): `frame` scaled by `gain`
/// compared with `background`. A cell changed when the difference exceeds `threshold`, or
/// `relative` of the background's level where that is more (bright paint and sky clip
/// differently as a camera's exposure moves, by more than dark asphalt does), and at
/// least 3 of its 8 neighbours changed too (a lone cell is noise); `mask` (1: watched) limits
/// where. `changed` receives 1 for each changed cell. The background moves toward the scaled
/// frame by `rate_still` where nothing changed, and not at all where something did, so that
/// nothing of a person standing stays behind when they leave; a cell changed for `absorb_after`
/// seconds in a row (`changed_for` keeps the count, `dt` the step) takes the frame as its
/// background at once: a parked car becomes the scene. Returns the number of changed cells, and
/// in `sum_diff` the sum of their differences.
int gpick_motion_step(const uint8_t *frame, float *background, float *changed_for, const uint8_t *mask, uint8_t *changed,
                      int w, int h, float gain, float threshold, float relative, float rate_still, float dt, float absorb_after,
                      double *sum_diff);

/// The changed cells of one zone: how many cells are set in both `changed` and `zone` (grids of
/// `w` × `h`), and in `box` (x0, y0, x1, y1, inclusive) the cells they span; the box is left as
/// it is when none are.
int gpick_zone_tally(const uint8_t *changed, const uint8_t *zone, int w, int h, int box[4]);

#endif
