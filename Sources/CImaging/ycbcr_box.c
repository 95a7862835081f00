/* One decoded HEIF tile (Y, Cb, Cr planes of 8 to 16 bits, 4:2:0, 4:2:2 or 4:4:4), shrunk by an
 * integer factor with a box average and converted to RGB into its place in a canvas: how a
 * 200 MP HEIC grid becomes a 50 MP (or smaller) picture without ever holding the whole image.
 * Integer work per sample, no allocation, no global state. */
#include "gpick_imaging.h"

#include <stddef.h>

static inline int sample(const uint8_t *plane, int stride, int wide, int x, int y) {
    const uint8_t *row = plane + (size_t)y * stride;
    return wide ? (int)((const uint16_t *)row)[x] : (int)row[x];
}

static inline uint8_t clamp8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

int gpick_ycbcr_box_rgb(const gpick_ycbcr *in, int factor, uint8_t *out, int out_stride, int out_x, int out_y,
                        int out_w, int out_h) {
    if (!in || !out || factor < 1 || in->width <= 0 || in->height <= 0 || in->bits < 8 || in->bits > 16) return -1;
    const int wide = in->bits > 8, shift = in->bits - 8;
    /* Fixed-point coefficients (×1024) of R = Y + a·Cr, G = Y − b·Cb − c·Cr, B = Y + d·Cb. */
    int a, b, c, d;
    switch (in->matrix) {
    case 1: a = 1613; b = 192; c = 479; d = 1900; break;   /* BT.709 */
    case 9: a = 1510; b = 169; c = 585; d = 1927; break;   /* BT.2020 */
    default: a = 1436; b = 352; c = 731; d = 1815; break;  /* BT.601 */
    }
    const int cw = (in->width + (1 << in->chroma_shift_x) - 1) >> in->chroma_shift_x;
    const int ch = (in->height + (1 << in->chroma_shift_y) - 1) >> in->chroma_shift_y;
    for (int oy = 0; oy < out_h; oy++) {
        const int y0 = oy * factor;
        if (y0 >= in->height) break;
        const int y1 = y0 + factor < in->height ? y0 + factor : in->height;
        const int cy0 = y0 >> in->chroma_shift_y, cy1 = ((y1 - 1) >> in->chroma_shift_y) + 1;
        uint8_t *dst = out + (size_t)(out_y + oy) * out_stride + (size_t)out_x * 3;
        for (int ox = 0; ox < out_w; ox++) {
            const int x0 = ox * factor;
            if (x0 >= in->width) break;
            const int x1 = x0 + factor < in->width ? x0 + factor : in->width;
            long sy = 0;
            for (int y = y0; y < y1; y++)
                for (int x = x0; x < x1; x++) sy += sample(in->planes[0], in->strides[0], wide, x, y);
            const int cx0 = x0 >> in->chroma_shift_x, cx1 = ((x1 - 1) >> in->chroma_shift_x) + 1;
            long su = 0, sv = 0;
            int nc = 0;
            for (int y = cy0; y < cy1 && y < ch; y++)
                for (int x = cx0; x < cx1 && x < cw; x++) {
                    su += sample(in->planes[1], in->strides[1], wide, x, y);
                    sv += sample(in->planes[2], in->strides[2], wide, x, y);
                    nc++;
                }
            const int n = (y1 - y0) * (x1 - x0);
            int Y = (int)((sy + n / 2) / n) >> shift;
            int U = (nc ? (int)((su + nc / 2) / nc) >> shift : 128) - 128;
            int V = (nc ? (int)((sv + nc / 2) / nc) >> shift : 128) - 128;
            if (!in->full_range) {
                Y = (Y - 16) * 1192 / 1024;  /* 255/219 */
                U = U * 1166 / 1024;         /* 255/224 */
                V = V * 1166 / 1024;
            }
            dst[0] = clamp8(Y + ((a * V + 512) >> 10));
            dst[1] = clamp8(Y - ((b * U + c * V + 512) >> 10));
            dst[2] = clamp8(Y + ((d * U + 512) >> 10));
            dst += 3;
        }
    }
    return 0;
}
