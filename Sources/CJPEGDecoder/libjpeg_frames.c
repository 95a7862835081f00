// gpickjpegdec's frames through libjpeg-turbo's libjpeg API. Each frame is decoded once,
// straight into the output buffer's planes in the JPEG's own subsampling (4:2:0 → I420,
// 4:2:2 → Y42B, …), as jpegdec's raw path does, and checked as it is decoded:
// - libjpeg's corrupt-data warnings (a bad Huffman code, a scan that runs into a marker or ends
//   early, stray bytes before a marker, restart markers out of order) end the frame. jpegdec
//   keeps them to itself and decodes past them into a grey or smeared picture.
// - Each block's coefficients, as the entropy decoder hands them over, must be ones an 8-bit
//   JPEG can hold: a DC value the block's mean could have (its size was at most 11 bits) and AC
//   values of at most 10 bits. A bit flipped in a DC size code can leave the codes in step,
//   and libjpeg silently adds the bogus difference to every later block of that component: a
//   third of a frame saturated, with no warning.
//
// libjpeg (libjpeg62-turbo, which GStreamer's own JPEG elements use) is opened with dlopen on
// registration: gpick starts without loading it, and where it cannot be opened the element is
// not there (jpegdec decodes, and gpick checks the frames before it).
#include "libjpeg_frames.h"

#include <dlfcn.h>
#include <stdio.h>
#include <jerror.h>

// MARK: libjpeg, opened once

struct libjpeg gj_libjpeg;

int gj_open(void) {
    // The ABI this file is built against (JPEG_LIB_VERSION 62): Debian's libjpeg62-turbo.
    void *h = dlopen("libjpeg.so.62", RTLD_NOW | RTLD_LOCAL);
    if (!h) return 0;
#define FIND(field, name) gj_libjpeg.field = (__typeof__(gj_libjpeg.field))dlsym(h, name)
    FIND(std_error, "jpeg_std_error");
    FIND(create, "jpeg_CreateDecompress");
    FIND(destroy, "jpeg_destroy_decompress");
    FIND(memory_source, "jpeg_mem_src");
    FIND(read_header, "jpeg_read_header");
    FIND(start, "jpeg_start_decompress");
    FIND(read_raw, "jpeg_read_raw_data");
    FIND(read_scanlines, "jpeg_read_scanlines");
    FIND(finish, "jpeg_finish_decompress");
    FIND(abort_decompress, "jpeg_abort_decompress");
#undef FIND
    if (gj_libjpeg.std_error && gj_libjpeg.create && gj_libjpeg.destroy && gj_libjpeg.memory_source && gj_libjpeg.read_header && gj_libjpeg.start && gj_libjpeg.read_raw &&
        gj_libjpeg.read_scanlines && gj_libjpeg.finish && gj_libjpeg.abort_decompress)
        return 1;
    dlclose(h);
    return 0;
}

// libjpeg's entropy decoder as jpegint.h declares it (libjpeg's internal header, the same since
// libjpeg 6b): the coefficient controller calls decode_mcu through this pointer for each MCU.
struct entropy_decoder {
    void (*start_pass)(j_decompress_ptr cinfo);
    boolean (*decode_mcu)(j_decompress_ptr cinfo, JBLOCKROW *MCU_data);
    boolean insufficient_data;
};

// MARK: errors, warnings and the coefficient check

void gj_stop(j_common_ptr cinfo) {
    decode_error *e = (decode_error *)cinfo->err;
    cinfo->err->format_message(cinfo, e->reason);
    longjmp(e->jump, 1);
}

// Warnings that say the coded data is damaged stop the frame; others (an unknown JFIF version,
// an odd Adobe marker) do not: a camera that always sends one would have every frame dropped.
void gj_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    switch (cinfo->err->msg_code) {
    case JWRN_HIT_MARKER: case JWRN_HUFF_BAD_CODE: case JWRN_JPEG_EOF: case JWRN_MUST_RESYNC:
    case JWRN_EXTRANEOUS_DATA: case JWRN_TOO_MUCH_DATA: case JWRN_NOT_SEQUENTIAL:
        gj_stop(cinfo);
    default:
        break;
    }
}

void gj_output(j_common_ptr cinfo) { (void)cinfo; }

// The entropy decoder's own decode_mcu, then its blocks checked (see the top of the file). An
// 8-bit block's DC coefficient is 8 × (mean − 128), within ±1024 before quantisation.
static boolean checked_mcu(j_decompress_ptr cinfo, JBLOCKROW *blocks) {
    coefficient_check *check = cinfo->client_data;
    if (!check->decode_mcu(cinfo, blocks)) return FALSE;
    for (int b = 0; b < cinfo->blocks_in_MCU; b++) {
        const JCOEF *c = blocks[b][0];
        int q = check->dc_quant[cinfo->MCU_membership[b]];
        // Each range as one unsigned comparison, so the loop vectorises.
        unsigned bad = (unsigned)(c[0] * q + 1024 + q) > (unsigned)(2048 + 2 * q);
        for (int k = 1; k < DCTSIZE2; k++) bad |= (unsigned)(c[k] + 1023) > 2046u;
        if (bad) {
            decode_error *e = (decode_error *)cinfo->err;
            snprintf(e->reason, sizeof e->reason, "Corrupt JPEG data: a coefficient no 8-bit JPEG holds");
            longjmp(e->jump, 1);
        }
    }
    return TRUE;
}

void gj_check_coefficients(j_decompress_ptr cinfo, coefficient_check *check) {
    for (int i = 0; i < cinfo->comps_in_scan && i < MAX_COMPS_IN_SCAN; i++) {
        jpeg_component_info *comp = cinfo->cur_comp_info[i];
        JQUANT_TBL *table = comp->quant_table ? comp->quant_table : cinfo->quant_tbl_ptrs[comp->quant_tbl_no];
        check->dc_quant[i] = table ? table->quantval[0] : 1;
    }
    struct entropy_decoder *entropy = (struct entropy_decoder *)cinfo->entropy;
    check->decode_mcu = entropy->decode_mcu;
    entropy->decode_mcu = checked_mcu;
    cinfo->client_data = check;
}

// MARK: layouts

// The raw format a YCbCr or grey JPEG decodes to without a conversion, from its sampling
// factors; RGBx (libjpeg converting) for the rest; UNKNOWN for CMYK.
GstVideoFormat gj_output_format(j_decompress_ptr cinfo) {
    if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) return GST_VIDEO_FORMAT_UNKNOWN;
    if (cinfo->num_components == 1) return GST_VIDEO_FORMAT_GRAY8;
    if (cinfo->num_components != 3 || cinfo->jpeg_color_space != JCS_YCbCr) return GST_VIDEO_FORMAT_RGBx;
    jpeg_component_info *c = cinfo->comp_info;
    if (c[1].h_samp_factor != 1 || c[1].v_samp_factor != 1 || c[2].h_samp_factor != 1 || c[2].v_samp_factor != 1)
        return GST_VIDEO_FORMAT_RGBx;
    int h = c[0].h_samp_factor, v = c[0].v_samp_factor;
    if (h == 2 && v == 2) return GST_VIDEO_FORMAT_I420;
    if (h == 2 && v == 1) return GST_VIDEO_FORMAT_Y42B;
    if (h == 1 && v == 1) return GST_VIDEO_FORMAT_Y444;
    if (h == 4 && v == 1) return GST_VIDEO_FORMAT_Y41B;
    return GST_VIDEO_FORMAT_RGBx;  // 4:4:0 and rarer layouts
}
