/* JPEGScanWalk's loop: a baseline scan's Huffman codes followed without decoding, at C speed
 * (it runs on every MJPEG frame a camera sends, beside the decoder, and in the debug build the
 * tests run). The bits are read as libjpeg reads them: most significant first, stuffed zero
 * bytes dropped; past a marker, zeros, counted, so running into it is seen. */
#include "gpick_imaging.h"

#include <string.h>

typedef struct {
    const uint8_t *p;
    long i, end, marker;
    uint64_t acc;
    int count, fake, at_marker;
} bits;

static void fill(bits *b) {
    /* Eight bytes at a time while none of them is FF (no stuffing, no marker): what fits. */
    if (!b->at_marker && b->count <= 56 && b->i + 8 <= b->end) {
        uint64_t x;
        memcpy(&x, b->p + b->i, 8);
        uint64_t y = ~x; /* FF bytes become 00 */
        if (!((y - 0x0101010101010101ULL) & ~y & 0x8080808080808080ULL)) {
            int n = (64 - b->count) >> 3;
            uint64_t be = __builtin_bswap64(x);
            if (n < 8) be &= ~((UINT64_C(1) << (64 - 8 * n)) - 1);
            b->acc |= be >> b->count;
            b->i += n;
            b->count += 8 * n;
            return;
        }
    }
    while (b->count <= 56) {
        unsigned byte = 0;
        if (!b->at_marker && b->i < b->end) {
            byte = b->p[b->i];
            if (byte == 0xFF) {
                if (b->i + 1 < b->end && b->p[b->i + 1] == 0x00) {
                    b->i += 2;
                } else {
                    b->at_marker = 1;
                    b->marker = b->i;
                    byte = 0;
                    b->fake += 8;
                }
            } else {
                b->i++;
            }
        } else {
            if (!b->at_marker) { b->at_marker = 1; b->marker = b->i; }
            b->fake += 8;
        }
        b->acc |= (uint64_t)byte << (56 - b->count);
        b->count += 8;
    }
}

static inline void skip(bits *b, int n) {
    if (b->count < n) fill(b);
    b->acc <<= n;
    b->count -= n;
}

/* The symbol of the next code in table t, or -1 for a code the table does not have. */
static inline int decode(bits *b, const uint16_t *fast, const int32_t *maxcode, const int32_t *offset,
                         const uint8_t *values) {
    if (b->count < 16) fill(b);
    unsigned e = fast[b->acc >> 56];
    if (e) {
        skip(b, (int)(e >> 8));
        return (int)(e & 0xFF);
    }
    for (int len = 9; len <= 16; len++) {
        int32_t code = (int32_t)(b->acc >> (64 - len));
        if (code <= maxcode[len]) {
            skip(b, len);
            int32_t index = code + offset[len];
            return index >= 0 && index < 256 ? values[index] : -1;
        }
    }
    return -1;
}

/* At the marker, with fewer than 8 bits left and all of them 1 (JPEG's padding). */
static int padded(bits *b) {
    fill(b);
    int left = b->count - b->fake;
    if (!b->at_marker || left < 0 || left >= 8) return 0;
    return left == 0 || (b->acc >> (64 - left)) == (((uint64_t)1 << left) - 1);
}

int gpick_jpeg_scan_whole(const uint8_t *data, long start, long end, const uint16_t *both, const uint16_t *fast, const int32_t *maxcode,
                          const int32_t *offset, const uint8_t *values, const int32_t *blocks, int nblocks, long mcus,
                          int restart) {
    bits b = { data, start, end, -1, 0, 0, 0, 0 };
    for (long mcu = 0; mcu < mcus; mcu++) {
        if (restart > 0 && mcu > 0 && mcu % restart == 0) {
            if (!padded(&b)) return 0;
            long p = b.marker;
            while (p + 1 < end && data[p + 1] == 0xFF) p++;  /* fill bytes before the marker */
            if (!(p + 1 < end && data[p + 1] == 0xD0 + ((mcu / restart - 1) & 7))) return 0;
            b.i = p + 2;
            b.acc = 0;
            b.count = b.fake = b.at_marker = 0;
            b.marker = -1;
        }
        for (int k0 = 0; k0 < nblocks; k0++) {
            int dc = blocks[k0] >> 3, ac = blocks[k0] & 7;
            const uint16_t *dcboth = both + dc * 1024, *acboth = both + ac * 1024;
            if (b.count < 32) fill(&b);
            unsigned e = dcboth[b.acc >> 54];
            if (e) {
                b.acc <<= e & 31;
                b.count -= e & 31;
            } else {
                int s = decode(&b, fast + dc * 256, maxcode + dc * 17, offset + dc * 17, values + dc * 256);
                if (s < 0 || s > 11) return 0;
                skip(&b, s);
            }
            for (int k = 1; k < 64;) {
                int run, size;
                if (b.count < 32) fill(&b);
                e = acboth[b.acc >> 54];
                if (e) {  /* the code and its value bits in one step */
                    b.acc <<= e & 31;
                    b.count -= e & 31;
                    run = (e >> 5) & 15;
                    size = (e >> 9) & 15;
                } else {
                    int rs = decode(&b, fast + ac * 256, maxcode + ac * 17, offset + ac * 17, values + ac * 256);
                    if (rs < 0) return 0;
                    run = rs >> 4;
                    size = rs & 15;
                    if (size > 10) return 0;
                    skip(&b, size);
                }
                if (size == 0) {
                    if (run != 15) break; /* end of block */
                    k += 16;
                    continue;
                }
                k += run;
                if (k > 63) return 0;
                k++;
            }
            if (b.count < b.fake) return 0; /* ran into the marker: cut short */
        }
    }
    if (!padded(&b) || b.marker > end) return 0;
    for (long q = b.marker; q < end; q++)
        if (data[q] != 0xFF) return 0;
    return 1;
}
