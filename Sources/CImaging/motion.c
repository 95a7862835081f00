// Motion detection's pixel loops: the small luma picture, the light's gain, and one comparison
// with the background.
#include "gpick_imaging.h"
#include <math.h>
#include <stdlib.h>

void gpick_luma_grid(const uint8_t *plane, int stride, int width, int height, uint8_t *grid, int grid_w, int grid_h) {
    for (int gy = 0; gy < grid_h; gy++) {
        // The cell's rows and columns, and four samples evenly inside each.
        int y0 = (int)((long)gy * height / grid_h), y1 = (int)((long)(gy + 1) * height / grid_h);
        int rows[4];
        for (int k = 0; k < 4; k++) rows[k] = y0 + (int)((long)(2 * k + 1) * (y1 - y0) / 8);
        for (int gx = 0; gx < grid_w; gx++) {
            int x0 = (int)((long)gx * width / grid_w), x1 = (int)((long)(gx + 1) * width / grid_w);
            unsigned sum = 0;
            for (int k = 0; k < 4; k++) {
                const uint8_t *row = plane + (long)rows[k] * stride;
                for (int j = 0; j < 4; j++) sum += row[x0 + (int)((long)(2 * j + 1) * (x1 - x0) / 8)];
            }
            grid[gy * grid_w + gx] = (uint8_t)((sum + 8) / 16);
        }
    }
}

// The k-th smallest of v[0..<n] (quickselect; reorders v).
static float select_kth(float *v, int n, int k) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        float pivot = v[(lo + hi) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i <= j) {
                float t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return v[k];
    }
    return v[k];
}

float gpick_motion_gain(const uint8_t *frame, const float *background, const uint8_t *mask, int n) {
    float *ratios = malloc(sizeof(float) * (size_t)n);
    if (!ratios) return 1;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (mask[i] && frame[i] >= 8) ratios[m++] = background[i] / frame[i];
    float gain = m > 0 ? select_kth(ratios, m, m / 2) : 1;
    free(ratios);
    return gain < 0.5f ? 0.5f : gain > 2 ? 2 : gain;
}

int gpick_motion_step(const uint8_t *frame, float *background, float *changed_for, const uint8_t *mask, uint8_t *changed,
                      int w, int h, float gain, float threshold, float relative, float rate_still, float dt, float absorb_after,
                      double *sum_diff) {
    int n = w * h;
    uint8_t *raw = malloc((size_t)n);
    if (!raw) return -1;
    for (int i = 0; i < n; i++) {
        float limit = fmaxf(threshold, relative * background[i]);
        raw[i] = mask[i] && fabsf(frame[i] * gain - background[i]) > limit;
    }
    int count = 0;
    double total = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int i = y * w + x, neighbours = 0;
            if (raw[i]) {
                for (int dy = -1; dy <= 1; dy++) {
                    int yy = y + dy;
                    if (yy < 0 || yy >= h) continue;
                    for (int dx = -1; dx <= 1; dx++) {
                        int xx = x + dx;
                        if ((dx || dy) && xx >= 0 && xx < w) neighbours += raw[yy * w + xx];
                    }
                }
            }
            changed[i] = raw[i] && neighbours >= 3;
            if (changed[i]) {
                count++;
                total += fabsf(frame[i] * gain - background[i]);
            }
        }
    }
    for (int i = 0; i < n; i++) {
        float target = frame[i] * gain;
        if (!changed[i]) {
            changed_for[i] = 0;
            background[i] += rate_still * (target - background[i]);
        } else if ((changed_for[i] += dt) >= absorb_after) {
            changed_for[i] = 0;
            background[i] = target;
        }
    }
    free(raw);
    *sum_diff = total;
    return count;
}

int gpick_zone_tally(const uint8_t *changed, const uint8_t *zone, int w, int h, int box[4]) {
    int n = 0, x0 = w, y0 = h, x1 = -1, y1 = -1;
    for (int y = 0; y < h; y++) {
        const uint8_t *c = changed + (long)y * w, *z = zone + (long)y * w;
        for (int x = 0; x < w; x++) {
            if (!(c[x] && z[x])) continue;
            n++;
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            y1 = y;
        }
    }
    if (n) { box[0] = x0; box[1] = y0; box[2] = x1; box[3] = y1; }
    return n;
}
