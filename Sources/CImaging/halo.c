/* The avatar's text halo: how far each pixel is from the text's ink (a 3-4 chamfer distance, two
 * passes), and a scrim laid by that distance: fully there near the glyphs, fading out with a
 * smoothstep far enough that no two neighbouring pixels differ by more than a few levels. As
 * subtitle renderers outline text and Material protects it: the scrim follows the glyphs. */
#include "gpick_imaging.h"

#include <stddef.h>

enum { ORTHO = 3, DIAG = 4, FAR = 65535 };

static inline uint16_t min2(uint16_t a, uint16_t b) { return a < b ? a : b; }

void gpick_chamfer_distance(const uint8_t *alpha, int pixel_stride, int row_stride, int w, int h, uint8_t threshold,
                            uint16_t *out) {
    if (!alpha || !out || w <= 0 || h <= 0) return;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            out[(size_t)y * w + x] = alpha[(size_t)y * row_stride + (size_t)x * pixel_stride] >= threshold ? 0 : FAR;
    /* Forward: from the left and above. */
    for (int y = 0; y < h; y++) {
        uint16_t *row = out + (size_t)y * w, *up = y > 0 ? row - w : NULL;
        for (int x = 0; x < w; x++) {
            uint16_t d = row[x];
            if (x > 0 && row[x - 1] < FAR) d = min2(d, row[x - 1] + ORTHO);
            if (up) {
                if (up[x] < FAR) d = min2(d, up[x] + ORTHO);
                if (x > 0 && up[x - 1] < FAR) d = min2(d, up[x - 1] + DIAG);
                if (x + 1 < w && up[x + 1] < FAR) d = min2(d, up[x + 1] + DIAG);
            }
            row[x] = d;
        }
    }
    /* Backward: from the right and below. */
    for (int y = h - 1; y >= 0; y--) {
        uint16_t *row = out + (size_t)y * w, *down = y + 1 < h ? row + w : NULL;
        for (int x = w - 1; x >= 0; x--) {
            uint16_t d = row[x];
            if (x + 1 < w && row[x + 1] < FAR) d = min2(d, row[x + 1] + ORTHO);
            if (down) {
                if (down[x] < FAR) d = min2(d, down[x] + ORTHO);
                if (x + 1 < w && down[x + 1] < FAR) d = min2(d, down[x + 1] + DIAG);
                if (x > 0 && down[x - 1] < FAR) d = min2(d, down[x - 1] + DIAG);
            }
            row[x] = d;
        }
    }
}

double gpick_halo_strength(uint16_t distance, double near, double falloff) {
    const double d = distance / (double)ORTHO;
    if (d <= near) return 1;
    if (falloff <= 0 || d >= near + falloff) return 0;
    const double t = (d - near) / falloff;
    return 1 - t * t * (3 - 2 * t);
}

void gpick_halo_blend(uint8_t *bgra, int row_stride, int w, int h, const uint16_t *distance, double near, double falloff,
                      double alpha, uint8_t shade, uint8_t *alpha_out) {
    if (!bgra || !distance || w <= 0 || h <= 0) return;
    for (int y = 0; y < h; y++) {
        uint8_t *p = bgra + (size_t)y * row_stride;
        for (int x = 0; x < w; x++, p += 4) {
            const double a = alpha * gpick_halo_strength(distance[(size_t)y * w + x], near, falloff);
            if (alpha_out) alpha_out[(size_t)y * w + x] = (uint8_t)(a * 255 + 0.5);
            if (a <= 0) continue;
            /* The canvas is opaque: premultiplied and straight are the same there. */
            for (int c = 0; c < 3; c++) p[c] = (uint8_t)(p[c] + (shade - p[c]) * a + (shade >= p[c] ? 0.5 : -0.5));
        }
    }
}
