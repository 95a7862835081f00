/* FrameMeasure's sums: a pass over every other row of each plane, at C speed in the debug build
 * the tests run as well (they measure every frame of the recordings they decode). */
#include "imaging_internal.h"

#include <stddef.h>

static uint64_t row_sum(const uint8_t *row, int w) {
    uint64_t s = 0;
    for (int x = 0; x < w; x++) s += row[x];
    return s;
}

static uint64_t row_steps(const uint8_t *row, int w) {
    uint64_t s = 0;
    for (int x = 0; x + 1 < w; x++) s += (uint64_t)(row[x + 1] > row[x] ? row[x + 1] - row[x] : row[x] - row[x + 1]);
    return s;
}

int gpick_measure_i420(const gpick_i420 *im, double means[3], double *detail) {
    if (!gpick_valid_image(im) || im->width < 2 || im->height < 2) return -1;
    for (int p = 0; p < 3; p++) {
        const int w = gpick_plane_w(im, p), h = gpick_plane_h(im, p);
        uint64_t sum = 0, n = 0;
        for (int y = 0; y < h; y += 2) {
            sum += row_sum(im->planes[p] + (size_t)y * im->strides[p], w);
            n += (uint64_t)w;
        }
        means[p] = n ? (double)sum / (double)n : 0;
    }
    uint64_t steps = 0, n = 0;
    for (int y = 0; y < im->height; y += 2) {
        steps += row_steps(im->planes[0] + (size_t)y * im->strides[0], im->width);
        n += (uint64_t)(im->width - 1);
    }
    *detail = n ? (double)steps / (double)n : 0;
    return 0;
}
