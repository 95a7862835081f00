/* The placeholder ("blurred last frame") for I420 frames; the crossfade is in blend.c.
 *
 * Placeholder, per plane: box-average downscale by `factor` into a small image, three passes of a
 * separable box blur there, then a bilinear upscale. The upscale is done separably as well: each
 * small row is expanded horizontally once (precomputed taps) and kept while output rows need it,
 * so the per-output-pixel work is one vertical lerp of two cached full-width rows — contiguous
 * 16-bit arithmetic that vectorises.
 *
 * Fixed point: the small image holds 1/16 levels (max 4080) while it is averaged and blurred, then
 * 1/4 levels (max 1020, 1022 with ROW_BIAS) so that both lerps (6-bit weights) fit in uint16 lanes:
 * 1022 × 64 < 2^16.
 *
 * No global state (thread-safe). One malloc per call: the small image twice (blur ping-pong) plus a
 * few full-width rows — about 150 KB for 1080p, never a full frame.
 */
#include "imaging_internal.h"

#include <stdlib.h>
#include <string.h>

enum {
    SMALL_FRAC = 4,   /* fractional bits of the small image while averaging and blurring */
    ROW_FRAC = 2,     /* fractional bits of the small image when upscaling, and of expanded rows */
    W_BITS = 6,       /* bilinear weight bits (exact for power-of-two factors up to 32) */
    ROW_BIAS = 2,     /* half a level in ROW_FRAC units, added to expanded rows: the final rounding */
    PAD = 8,          /* tail slack of expanded rows and taps: vector stores may run past a run */
    BLUR_PASSES = 3,  /* three box passes ≈ Gaussian */
    COLSUM_ROWS = 128 /* 128 rows × 2 columns × 255 still fit a uint16 column sum */
};

typedef struct {
    const uint8_t *data;
    int stride, w, h;
} plane_in;

typedef struct {
    uint8_t *data;
    int stride, w, h;
} plane_out;

/* Scratch laid out in one allocation, sized for the largest plane (Y). */
typedef struct {
    uint64_t *sums;    /* sw: block sums of one block row, then column sums of the vertical blur */
    int32_t *run_x;    /* sw + 1: first output column of each run of columns between two samples */
    int32_t *run_i;    /* sw: left small index of each run */
    uint16_t *small;   /* sw × sh */
    uint16_t *tmp;     /* sw × sh: blur ping-pong */
    uint16_t *colsum;  /* w: column (or column-pair) sums of up to COLSUM_ROWS source rows */
    uint16_t *rows[2]; /* w + PAD each: horizontally expanded small rows, ROW_FRAC */
    uint16_t *tapw;    /* w + PAD: weight of the right neighbour per output column */
    int nruns;
} scratch;

/* Rounded 2^32 / n, so that (v * r + 2^31) >> 32 ≈ round(v / n) without a divide per sample. */
static uint64_t recip32(uint64_t n) { return ((UINT64_C(1) << 32) + n / 2) / n; }

static uint32_t mul_recip(uint64_t v, uint64_t r) { return (uint32_t)((v * r + (UINT64_C(1) << 31)) >> 32); }

/* ---- downscale ---------------------------------------------------------------------------- */

/* Column sums of n rows in 16-bit lanes; returns how many entries it wrote. For even f, adjacent
 * columns are summed in pairs (col[i] = columns 2i and 2i+1; the last entry holds one column when
 * w is odd): a block never splits a pair, the flush has half the entries, and the pair sums come
 * for free from the 16-bit lanes of the loaded bytes. The vector loop walks column chunks outermost
 * so the running sum stays in a register instead of being reloaded and stored once per row. */
static int sum_rows(uint16_t *col, const uint8_t *row, int stride, int n, int w, int pairs) {
    if (!pairs) {
        for (int k = 0; k < n; k++, row += stride)
            for (int x = 0; x < w; x++) col[x] = (uint16_t)((k ? col[x] : 0) + row[x]);
        return w;
    }
    int x = 0;
#if GPICK_VEC
    for (; x + 16 <= w; x += 16) {
        const uint8_t *p = row + x;
        v8u16 acc = {0};
        for (int k = 0; k < n; k++, p += stride) {
            v8u16 v;
            memcpy(&v, p, 16);
            acc += (v & 0xFF) + (v >> 8); /* byte order does not matter: both bytes are added */
        }
        memcpy(col + x / 2, &acc, 16);
    }
#endif
    for (int k = 0; k < n; k++, row += stride)
        for (int i = x; i < w; i += 2) {
            int v = row[i] + (i + 1 < w ? row[i + 1] : 0);
            col[i / 2] = (uint16_t)((k ? col[i / 2] : 0) + v);
        }
    return (w + 1) / 2;
}

/* Sum of the four 16-bit lanes of v, given that it fits 16 bits (so no lane carries). */
static uint32_t hsum4_u16(uint64_t v) { return (uint32_t)((v * UINT64_C(0x0001000100010001)) >> 48); }

/* Adds col[] into the block sums, `per` entries to a block (the last one may be partial).
 * `swar`: a whole block's sum fits 16 bits, so four entries can be added as one uint64 and
 * folded once. */
static void flush_blocks(uint64_t *sums, const uint16_t *col, int entries, int per, int sw, int swar) {
    int bx = 0;
    if (swar && per % 4 == 0) {
        for (; (int64_t)(bx + 1) * per <= entries; bx++) {
            const uint16_t *c = col + (size_t)bx * per;
            uint64_t acc = 0;
            for (int j = 0; j < per; j += 4) {
                uint64_t v;
                memcpy(&v, c + j, 8);
                acc += v;
            }
            sums[bx] += hsum4_u16(acc);
        }
    }
    for (; bx < sw; bx++) {
        int i = bx * per, i1 = i + per < entries ? i + per : entries;
        /* Unrolled into two chains: a plain loop is overhead- and latency-bound. */
        uint64_t s0 = 0, s1 = 0;
        for (; i + 4 <= i1; i += 4) {
            s0 += (uint32_t)col[i] + col[i + 1];
            s1 += (uint32_t)col[i + 2] + col[i + 3];
        }
        for (; i < i1; i++) s0 += col[i];
        sums[bx] += s0 + s1;
    }
}

/* Box average of each f×f block of `in` into sc->small (SMALL_FRAC fixed point). */
static void downscale(const plane_in *in, int f, int sw, int sh, scratch *sc) {
    int lastw = in->w - (sw - 1) * f, pairs = f % 2 == 0;
    for (int by = 0; by < sh; by++) {
        int y0 = by * f, rows = y0 + f < in->h ? f : in->h - y0;
        memset(sc->sums, 0, (size_t)sw * sizeof *sc->sums);
        for (int r = 0; r < rows; r += COLSUM_ROWS) {
            int n = rows - r < COLSUM_ROWS ? rows - r : COLSUM_ROWS;
            const uint8_t *first = in->data + (size_t)(y0 + r) * in->stride;
            int entries = sum_rows(sc->colsum, first, in->stride, n, in->w, pairs);
            flush_blocks(sc->sums, sc->colsum, entries, pairs ? f / 2 : f, sw, (int64_t)f * n * 255 <= 65535);
        }
        /* Only the last column's block may be narrower. */
        uint64_t rfull = recip32((uint64_t)rows * f), rlast = recip32((uint64_t)rows * lastw);
        uint16_t *out = sc->small + (size_t)by * sw;
        for (int bx = 0; bx < sw; bx++)
            out[bx] = (uint16_t)mul_recip(sc->sums[bx] << SMALL_FRAC, bx == sw - 1 ? rlast : rfull);
    }
}

/* ---- blur --------------------------------------------------------------------------------- */

/* Running box sum over in[0..n) for outputs i in [i0, i1), clamping indices at both ends. */
static uint64_t box_span_clamped(const uint16_t *in, uint16_t *out, int n, int r, uint64_t rc, uint64_t sum,
                                 int i0, int i1) {
    for (int i = i0; i < i1; i++) {
        out[i] = (uint16_t)mul_recip(sum, rc);
        int64_t add = (int64_t)i + r + 1, sub = (int64_t)i - r;
        sum += in[add < n ? add : n - 1];
        sum -= in[sub > 0 ? sub : 0];
    }
    return sum;
}

/* One horizontal box pass of radius r over a row of n samples, edges clamped. Only the first and
 * last r+1 outputs need clamped indices; the loop in between is kept free of them. */
static void box_row(const uint16_t *in, uint16_t *out, int n, int r) {
    uint64_t rc = recip32(2 * (uint64_t)r + 1);
    /* Window at i = 0: r+1 copies of in[0], then in[1..r] with indices past the end clamped. */
    int inside = r < n - 1 ? r : n - 1;
    uint64_t sum = ((uint64_t)r + 1) * in[0] + (uint64_t)(r - inside) * in[n - 1];
    for (int i = 1; i <= inside; i++) sum += in[i];
    int e1 = r < n ? r + 1 : n;               /* i < e1: in[i - r] clamps */
    int e2 = n - 1 - r > e1 ? n - 1 - r : e1; /* i >= e2: in[i + r + 1] clamps */
    sum = box_span_clamped(in, out, n, r, rc, sum, 0, e1);
    for (int i = e1; i < e2; i++) {
        out[i] = (uint16_t)mul_recip(sum, rc);
        sum += (uint64_t)in[i + r + 1] - in[i - r];
    }
    box_span_clamped(in, out, n, r, rc, sum, e2, n);
}

/* The vertical pass keeps one running sum per column and walks rows, so memory stays contiguous. */
static void box_cols(const uint16_t *in, uint16_t *out, uint64_t *sums, int sw, int sh, int r) {
    uint64_t rc = recip32(2 * (uint64_t)r + 1);
    int inside = r < sh - 1 ? r : sh - 1;
    const uint16_t *last = in + (size_t)(sh - 1) * sw;
    for (int x = 0; x < sw; x++) sums[x] = ((uint64_t)r + 1) * in[x] + (uint64_t)(r - inside) * last[x];
    for (int i = 1; i <= inside; i++)
        for (int x = 0; x < sw; x++) sums[x] += in[(size_t)i * sw + x];
    for (int y = 0; y < sh; y++) {
        int64_t ya = (int64_t)y + r + 1, ys = (int64_t)y - r;
        const uint16_t *add = in + (size_t)(ya < sh ? ya : sh - 1) * sw;
        const uint16_t *sub = in + (size_t)(ys > 0 ? ys : 0) * sw;
        uint16_t *o = out + (size_t)y * sw;
        for (int x = 0; x < sw; x++) {
            o[x] = (uint16_t)mul_recip(sums[x], rc);
            sums[x] += add[x];
            sums[x] -= sub[x];
        }
    }
}

/* Blurs sc->small in place and leaves it in ROW_FRAC fixed point for the upscale. */
static void blur_small(scratch *sc, int sw, int sh, int r) {
    size_t n = (size_t)sw * sh;
    for (int pass = 0; r > 0 && pass < BLUR_PASSES; pass++) {
        for (int y = 0; y < sh; y++) box_row(sc->small + (size_t)y * sw, sc->tmp + (size_t)y * sw, sw, r);
        box_cols(sc->tmp, sc->small, sc->sums, sw, sh, r);
    }
    const int d = SMALL_FRAC - ROW_FRAC;
    for (size_t i = 0; i < n; i++) sc->small[i] = (uint16_t)((sc->small[i] + (1 << (d - 1))) >> d);
}

/* ---- bilinear upscale --------------------------------------------------------------------- */

/* Output index o samples the small image at (o + 0.5) / f − 0.5 (pixel centres, no shift).
 * Returns the left/top small index and the weight of its right/bottom neighbour in W_BITS;
 * positions outside the first/last centre clamp to that sample. */
static int sample_pos(int o, int f, int n, int *weight) {
    int64_t num = 2 * (int64_t)o + 1 - f; /* position × 2f */
    if (num <= 0) {
        *weight = 0;
        return 0;
    }
    int64_t p = ((num << W_BITS) + f) / (2 * (int64_t)f); /* position in 1/2^W_BITS, rounded */
    int i = (int)(p >> W_BITS);
    if (i >= n - 1) {
        *weight = 0;
        return n - 1;
    }
    *weight = (int)(p & ((1 << W_BITS) - 1));
    return i;
}

/* Horizontal taps, grouped into runs of output columns that share the same two small samples
 * (about f columns each), so the expansion broadcasts two values per run and streams weights. */
static void make_taps(scratch *sc, int w, int f, int sw, int mirror) {
    sc->nruns = 0;
    for (int x = 0; x < w; x++) {
        int wt, i = sample_pos(mirror ? w - 1 - x : x, f, sw, &wt);
        sc->tapw[x] = (uint16_t)wt;
        if (sc->nruns == 0 || sc->run_i[sc->nruns - 1] != i) {
            sc->run_i[sc->nruns] = i;
            sc->run_x[sc->nruns++] = x;
        }
    }
    sc->run_x[sc->nruns] = w;
    memset(sc->tapw + w, 0, PAD * sizeof *sc->tapw);
}

/* Small row → full-width row, once per small row rather than once per output row. Within a run,
 * a·(1 − t) + b·t is computed as a·2^W_BITS + (b − a)·t in wrapping uint16 arithmetic: the true
 * value stays in [0, 2^16), so the wrap of a negative b − a cancels out. ROW_BIAS is added here once
 * so that lerp_rows needs no rounding term. */
static void expand_row(const scratch *sc, const uint16_t *s, uint16_t *out, int sw) {
    const int add = (1 << (W_BITS - 1)) + (ROW_BIAS << W_BITS), nruns = sc->nruns;
    /* Locals, not sc->…: memcpy stores may alias anything, which would force reloads. */
    const int32_t *run_i = sc->run_i, *run_x = sc->run_x;
    const uint16_t *tapw = sc->tapw;
    for (int k = 0; k < nruns; k++) {
        int i = run_i[k], x = run_x[k], x1 = run_x[k + 1];
        int a = s[i], b = s[i + 1 < sw ? i + 1 : i];
        uint16_t base = (uint16_t)((a << W_BITS) + add), d = (uint16_t)(b - a);
#if GPICK_VEC
        /* Whole vectors: the overshoot lands in the next run (rewritten next) or in the PAD. */
        for (; x < x1; x += 8) {
            v8u16 t, v;
            memcpy(&t, tapw + x, 16);
            v = (base + d * t) >> W_BITS;
            memcpy(out + x, &v, 16);
        }
#else
        for (; x < x1; x++) out[x] = (uint16_t)((uint16_t)(base + d * tapw[x]) >> W_BITS);
#endif
    }
}

/* out[x] = round(lerp(a[x], b[x], wb / 2^W_BITS)) in whole levels (the rounding is ROW_BIAS). */
static void lerp_rows(const uint16_t *a, const uint16_t *b, uint8_t *out, int w, int wb) {
    const int shift = ROW_FRAC + W_BITS;
    const uint16_t wa = (uint16_t)((1 << W_BITS) - wb);
    int x = 0;
#if GPICK_VEC
    for (; x + 16 <= w; x += 16) {
        v16u16 va, vb;
        memcpy(&va, a + x, 32);
        memcpy(&vb, b + x, 32);
        v16u8 r = __builtin_convertvector((va * wa + vb * (uint16_t)wb) >> shift, v16u8);
        memcpy(out + x, &r, 16);
    }
#endif
    for (; x < w; x++) out[x] = (uint8_t)((a[x] * wa + b[x] * wb) >> shift);
}

/* Output rows advance monotonically over small rows, so two cached expanded rows suffice:
 * when the pair moves down by one, the old bottom row becomes the new top one. */
static void upscale(scratch *sc, plane_out *out, int f, int sw, int sh) {
    uint16_t *top = sc->rows[0], *bot = sc->rows[1];
    int have_top = -1, have_bot = -1;
    for (int y = 0; y < out->h; y++) {
        int wb, i = sample_pos(y, f, sh, &wb);
        if (i != have_top) {
            if (i == have_bot) {
                uint16_t *t = top;
                top = bot;
                bot = t;
                have_bot = have_top;
            } else {
                expand_row(sc, sc->small + (size_t)i * sw, top, sw);
            }
            have_top = i;
        }
        const uint16_t *b = top; /* wb == 0: no bottom neighbour needed (e.g. past the last centre) */
        if (wb != 0) {
            if (have_bot != i + 1) {
                expand_row(sc, sc->small + (size_t)(i + 1) * sw, bot, sw);
                have_bot = i + 1;
            }
            b = bot;
        }
        lerp_rows(top, b, out->data + (size_t)y * out->stride, out->w, wb);
    }
}

/* ---- entry points ------------------------------------------------------------------------- */

static int small_dim(int n, int f) { return (int)(((int64_t)n + f - 1) / f); }

/* One block for all scratch, sized for the Y plane; widest element types first for alignment. */
static void *scratch_alloc(scratch *sc, int w, int sw, int sh) {
    size_t nsmall = (size_t)sw * sh, wp = (size_t)w + PAD;
    size_t bytes = (size_t)sw * 8 + ((size_t)sw * 2 + 1) * 4 + (nsmall * 2 + (size_t)w + wp * 3) * 2;
    uint8_t *m = malloc(bytes);
    if (!m) return NULL;
    sc->sums = (uint64_t *)m;
    sc->run_x = (int32_t *)(sc->sums + sw);
    sc->run_i = sc->run_x + sw + 1;
    sc->small = (uint16_t *)(sc->run_i + sw);
    sc->tmp = sc->small + nsmall;
    sc->colsum = sc->tmp + nsmall;
    sc->rows[0] = sc->colsum + w;
    sc->rows[1] = sc->rows[0] + wp;
    sc->tapw = sc->rows[1] + wp;
    return m;
}

/* dst may be src (in place): each plane is fully downscaled before it is written. */
int gpick_placeholder_i420(const gpick_i420 *src, gpick_i420 *dst, int factor, int radius, int mirror) {
    if (!gpick_valid_image(src) || !gpick_valid_image(dst) || factor < 1 || radius < 0) return -1;
    if (dst->width != src->width || dst->height != src->height) return -1;

    scratch sc;
    void *mem = scratch_alloc(&sc, src->width, small_dim(src->width, factor), small_dim(src->height, factor));
    if (!mem) return -1;
    for (int p = 0; p < 3; p++) {
        plane_in in = {src->planes[p], src->strides[p], gpick_plane_w(src, p), gpick_plane_h(src, p)};
        plane_out out = {dst->planes[p], dst->strides[p], in.w, in.h};
        int sw = small_dim(in.w, factor), sh = small_dim(in.h, factor);
        downscale(&in, factor, sw, sh, &sc);
        blur_small(&sc, sw, sh, radius);
        make_taps(&sc, in.w, factor, sw, mirror);
        upscale(&sc, &out, factor, sw, sh);
    }
    free(mem);
    return 0;
}
