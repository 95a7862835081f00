// What gpickjpegdec asks of libjpeg (libjpeg_frames.c): the library opened with dlopen, the error
// manager that stops a frame at damage, the coefficient check and the output layouts.
#ifndef GPICK_LIBJPEG_FRAMES_H
#define GPICK_LIBJPEG_FRAMES_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <gst/video/video.h>
#include <jpeglib.h>

/// libjpeg's calls, found by gj_open.
extern struct libjpeg {
    struct jpeg_error_mgr *(*std_error)(struct jpeg_error_mgr *);
    void (*create)(j_decompress_ptr, int, size_t);
    void (*destroy)(j_decompress_ptr);
    void (*memory_source)(j_decompress_ptr, const unsigned char *, unsigned long);
    int (*read_header)(j_decompress_ptr, boolean);
    boolean (*start)(j_decompress_ptr);
    JDIMENSION (*read_raw)(j_decompress_ptr, JSAMPIMAGE, JDIMENSION);
    JDIMENSION (*read_scanlines)(j_decompress_ptr, JSAMPARRAY, JDIMENSION);
    boolean (*finish)(j_decompress_ptr);
    void (*abort_decompress)(j_decompress_ptr);
} gj_libjpeg;

/// Opens libjpeg.so.62 and finds its calls; 0 when it cannot.
int gj_open(void);

/// An error manager whose errors and corrupt-data warnings jump back to `jump`, with `reason`.
typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char reason[JMSG_LENGTH_MAX];
} decode_error;

void gj_stop(j_common_ptr cinfo);
void gj_message(j_common_ptr cinfo, int level);
void gj_output(j_common_ptr cinfo);

/// The entropy decoder's own decode_mcu, and each scan component's DC quantiser.
typedef struct {
    boolean (*decode_mcu)(j_decompress_ptr cinfo, JBLOCKROW *MCU_data);
    int dc_quant[MAX_COMPS_IN_SCAN];
} coefficient_check;

/// After jpeg_start_decompress: every MCU's blocks are checked as they are decoded.
void gj_check_coefficients(j_decompress_ptr cinfo, coefficient_check *check);

/// The raw format a frame decodes to (UNKNOWN: CMYK, not decoded), from its header.
GstVideoFormat gj_output_format(j_decompress_ptr cinfo);

#endif
