/* Timing and sanity checks for Sources/CImaging (placeholder blur and crossfade) on a 1080p I420
 * frame. Build and run from the repository root:
 *   cc -O2 -I Sources/CImaging/include -I Sources/CImaging bench/imaging/bench.c Sources/CImaging/*.c -o /tmp/imaging-bench
 *   /tmp/imaging-bench
 * Prints two timing lines; exits 1 with a message if any check fails. */
#include "gpick_imaging.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { W = 1920, H = 1080, RUNS = 200, WARMUP = 5, FACTOR = 8, RADIUS = 3 };

static int fails;

static void require(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        fails++;
    }
}

static void require_le(double got, double limit, const char *what) {
    if (!(got <= limit)) {
        fprintf(stderr, "FAIL: %s (got %.3f, limit %.3f)\n", what, got, limit);
        fails++;
    }
}

static int pw(const gpick_i420 *im, int p) { return p ? (im->width + 1) / 2 : im->width; }
static int ph(const gpick_i420 *im, int p) { return p ? (im->height + 1) / 2 : im->height; }

/* Strides are padded on purpose so the code under test cannot assume tight rows. */
static gpick_i420 alloc_image(int w, int h) {
    gpick_i420 im = {.width = w, .height = h};
    for (int p = 0; p < 3; p++) {
        im.strides[p] = (pw(&im, p) + 63) & ~31;
        im.planes[p] = calloc((size_t)im.strides[p] * ph(&im, p), 1);
        if (!im.planes[p]) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    return im;
}

static void free_image(gpick_i420 *im) {
    for (int p = 0; p < 3; p++) free(im->planes[p]);
}

static uint32_t rng_state = 12345;
static int noise(int amp) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return (int)(rng_state % (2u * amp + 1)) - amp;
}

static uint8_t clamp8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* BT.601 75% colour bars (white, yellow, cyan, green, magenta, red, blue) plus uniform noise. */
static void fill_bars(gpick_i420 *im, int amp) {
    static const uint8_t yuv[7][3] = {{180, 128, 128}, {162, 44, 142}, {131, 156, 44}, {112, 72, 58},
                                      {84, 184, 198},  {65, 100, 212}, {35, 212, 114}};
    for (int p = 0; p < 3; p++)
        for (int y = 0; y < ph(im, p); y++)
            for (int x = 0; x < pw(im, p); x++) {
                int bar = x * 7 / pw(im, p);
                im->planes[p][(size_t)y * im->strides[p] + x] = clamp8(yuv[bar][p] + noise(amp));
            }
}

static double plane_mean(const gpick_i420 *im, int p) {
    double s = 0;
    for (int y = 0; y < ph(im, p); y++)
        for (int x = 0; x < pw(im, p); x++) s += im->planes[p][(size_t)y * im->strides[p] + x];
    return s / ((double)pw(im, p) * ph(im, p));
}

/* Mean |p(x,y) − p(x+1,y)| over the Y plane. */
static double hf_energy(const gpick_i420 *im) {
    double s = 0;
    for (int y = 0; y < im->height; y++) {
        const uint8_t *r = im->planes[0] + (size_t)y * im->strides[0];
        for (int x = 0; x + 1 < im->width; x++) s += abs(r[x] - r[x + 1]);
    }
    return s / ((double)(im->width - 1) * im->height);
}

static uint8_t at(const gpick_i420 *im, int p, int x, int y) { return im->planes[p][(size_t)y * im->strides[p] + x]; }

/* Block artefacts of a `block`× upscale sit on a grid of unknown phase, so neighbour differences
 * on the Y plane are grouped by position modulo `block`, per direction. A smooth (bilinear) image
 * has about the same mean difference in every phase (up to rounding); nearest-neighbour upscaling
 * puts it all in one. Returns the largest spread of those means, and the largest neighbour
 * difference anywhere (so every possible block boundary is included). */
static void blockiness(const gpick_i420 *im, int block, int *max_diff, double *phase_spread) {
    double sum[2][64] = {{0}};
    long n[2][64] = {{0}};
    *max_diff = 0;
    for (int y = 0; y < im->height; y++)
        for (int x = 0; x < im->width; x++)
            for (int dir = 0; dir < 2; dir++) {
                int x2 = x + !dir, y2 = y + dir;
                if (x2 >= im->width || y2 >= im->height) continue;
                int d = abs(at(im, 0, x, y) - at(im, 0, x2, y2)), k = (dir ? y2 : x2) % block;
                sum[dir][k] += d, n[dir][k]++;
                if (d > *max_diff) *max_diff = d;
            }
    *phase_spread = 0;
    for (int dir = 0; dir < 2; dir++) {
        double lo = 1e9, hi = 0;
        for (int k = 0; k < block; k++) {
            double m = sum[dir][k] / n[dir][k];
            lo = m < lo ? m : lo, hi = m > hi ? m : hi;
        }
        if (hi - lo > *phase_spread) *phase_spread = hi - lo;
    }
}

static int is_mirror(const gpick_i420 *a, const gpick_i420 *m) {
    for (int p = 0; p < 3; p++)
        for (int y = 0; y < ph(a, p); y++)
            for (int x = 0; x < pw(a, p); x++)
                if (at(a, p, x, y) != at(m, p, pw(a, p) - 1 - x, y)) return 0;
    return 1;
}

static double clock_ms(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *ms) {
    qsort(ms, RUNS, sizeof *ms, cmp_double);
    return (ms[RUNS / 2 - 1] + ms[RUNS / 2]) / 2; /* even count: mean of the middle two */
}

/* Wall-clock (CLOCK_MONOTONIC) median and nearest-rank p95 on stdout. The thread-CPU median goes
 * to stderr: when it is well below the wall median, the machine was busy and the wall numbers
 * include time spent preempted. */
static void report(const char *name, double *wall, double *cpu) {
    double m = median(wall);
    printf("%s median=%.3f p95=%.3f\n", name, m, wall[(RUNS * 95 + 99) / 100 - 1]);
    fflush(stdout);
    fprintf(stderr, "  (%s: thread-CPU median %.3f ms)\n", name, median(cpu));
}

typedef void (*bench_fn)(int i, void *ctx);

static void run_timed(const char *name, bench_fn fn, void *ctx) {
    static double wall[RUNS], cpu[RUNS];
    for (int i = 0; i < WARMUP + RUNS; i++) {
        double w0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
        fn(i, ctx);
        double c1 = clock_ms(CLOCK_THREAD_CPUTIME_ID), w1 = clock_ms(CLOCK_MONOTONIC);
        if (i >= WARMUP) wall[i - WARMUP] = w1 - w0, cpu[i - WARMUP] = c1 - c0;
    }
    report(name, wall, cpu);
}

typedef struct {
    gpick_i420 *src, *other, *out;
} frames;

static void run_placeholder(int i, void *ctx) {
    frames *f = ctx;
    (void)i;
    gpick_placeholder_i420(f->src, f->out, FACTOR, RADIUS, 0);
}

static void run_blend(int i, void *ctx) {
    frames *f = ctx;
    gpick_blend_i420(f->src, f->other, f->out, (i * 37) % 257);
}

/* Means, smoothness and mirroring of the placeholder for one source. */
static void check_placeholder(const gpick_i420 *src, int factor, int radius) {
    gpick_i420 out = alloc_image(src->width, src->height), mir = alloc_image(src->width, src->height);
    char what[160];
    if (gpick_placeholder_i420(src, &out, factor, radius, 0) != 0 ||
        gpick_placeholder_i420(src, &mir, factor, radius, 1) != 0) {
        fprintf(stderr, "FAIL: placeholder returned an error for %dx%d\n", src->width, src->height);
        exit(1);
    }
    for (int p = 0; p < 3; p++) {
        double d = plane_mean(&out, p) - plane_mean(src, p);
        d = d < 0 ? -d : d;
        snprintf(what, sizeof what, "%dx%d plane %d mean preserved", src->width, src->height, p);
        require_le(d, 1.5, what);
    }
    double hs = hf_energy(src), ho = hf_energy(&out);
    snprintf(what, sizeof what, "%dx%d high-frequency energy below 1/10 of the source's", src->width, src->height);
    require_le(ho, hs / 10, what);
    int max_diff;
    double spread;
    blockiness(&out, factor, &max_diff, &spread);
    snprintf(what, sizeof what, "%dx%d no block edges: max neighbour difference on Y", src->width, src->height);
    require_le(max_diff, 6, what);
    snprintf(what, sizeof what, "%dx%d no block edges: neighbour differences even across block phases", src->width,
             src->height);
    require_le(spread, 0.25, what);
    snprintf(what, sizeof what, "%dx%d mirror flag mirrors left-right", src->width, src->height);
    require(is_mirror(&out, &mir), what);
    free_image(&out);
    free_image(&mir);
}

static void check_blend(const gpick_i420 *a, const gpick_i420 *b) {
    gpick_i420 d = alloc_image(a->width, a->height);
    int alphas[] = {0, 256, 100};
    for (int k = 0; k < 3; k++) {
        gpick_blend_i420(a, b, &d, alphas[k]);
        for (int p = 0; p < 3; p++)
            for (int y = 0; y < ph(a, p); y++)
                for (int x = 0; x < pw(a, p); x++) {
                    int want = (at(a, p, x, y) * (256 - alphas[k]) + at(b, p, x, y) * alphas[k] + 128) >> 8;
                    if (at(&d, p, x, y) != want) {
                        fprintf(stderr, "FAIL: blend alpha=%d plane %d (%d,%d): %d, want %d\n", alphas[k], p, x, y,
                                at(&d, p, x, y), want);
                        exit(1);
                    }
                }
    }
    free_image(&d);
}

int main(void) {
    gpick_i420 src = alloc_image(W, H), out = alloc_image(W, H), other = alloc_image(W, H);
    fill_bars(&src, 24);
    fill_bars(&other, 60);

    /* Checks first: a fast wrong answer is not a result. An odd size exercises partial blocks. */
    check_placeholder(&src, FACTOR, RADIUS);
    gpick_i420 odd = alloc_image(643, 481);
    fill_bars(&odd, 24);
    check_placeholder(&odd, 7, 2);
    check_blend(&src, &other);
    gpick_i420 bad = src;
    bad.planes[1] = NULL;
    require(gpick_placeholder_i420(&bad, &out, FACTOR, RADIUS, 0) == -1, "NULL plane rejected");
    require(gpick_placeholder_i420(&src, &out, 0, RADIUS, 0) == -1, "factor 0 rejected");
    require(gpick_placeholder_i420(&src, &out, FACTOR, -1, 0) == -1, "negative radius rejected");
    if (fails) return 1;

    frames f = {&src, &other, &out};
    run_timed("placeholder_1080p_ms", run_placeholder, &f);
    run_timed("blend_1080p_ms", run_blend, &f);

    free_image(&src);
    free_image(&out);
    free_image(&other);
    free_image(&odd);
    return 0;
}
