#include "y4m_header.h"

#include <stdlib.h>
#include <string.h>

// The colour spaces (C tag) of yuv4mpeg(5) and ffmpeg's yuv4mpegpipe that GStreamer has a
// planar format for. The 4:2:0 chroma sitings differ only in where chroma lies, not in layout.
static GstVideoFormat format_of(const char *tag, gsize n) {
    static const struct { const char *tag; GstVideoFormat format; } table[] = {
        {"420jpeg", GST_VIDEO_FORMAT_I420}, {"420paldv", GST_VIDEO_FORMAT_I420},
        {"420mpeg2", GST_VIDEO_FORMAT_I420}, {"420", GST_VIDEO_FORMAT_I420},
        {"411", GST_VIDEO_FORMAT_Y41B}, {"422", GST_VIDEO_FORMAT_Y42B},
        {"444", GST_VIDEO_FORMAT_Y444}, {"mono", GST_VIDEO_FORMAT_GRAY8},
        {"420p10", GST_VIDEO_FORMAT_I420_10LE}, {"422p10", GST_VIDEO_FORMAT_I422_10LE},
        {"444p10", GST_VIDEO_FORMAT_Y444_10LE}, {"420p12", GST_VIDEO_FORMAT_I420_12LE},
        {"422p12", GST_VIDEO_FORMAT_I422_12LE}, {"444p12", GST_VIDEO_FORMAT_Y444_12LE},
        {"mono16", GST_VIDEO_FORMAT_GRAY16_LE},
    };
    for (gsize i = 0; i < G_N_ELEMENTS(table); i++) {
        if (strlen(table[i].tag) == n && memcmp(table[i].tag, tag, n) == 0) return table[i].format;
    }
    return GST_VIDEO_FORMAT_UNKNOWN;
}

// "N:D" with both parts decimal, N > 0 unless zero is allowed ("0:0", an unknown aspect).
static gboolean ratio_of(const char *s, gsize n, gint *num, gint *den) {
    char text[32];
    if (n == 0 || n >= sizeof text) return FALSE;
    memcpy(text, s, n);
    text[n] = 0;
    char *colon = strchr(text, ':'), *end = NULL;
    if (!colon) return FALSE;
    long a = strtol(text, &end, 10);
    if (end != colon || a < 0 || a > G_MAXINT) return FALSE;
    long b = strtol(colon + 1, &end, 10);
    if (*end != 0 || end == colon + 1 || b < 0 || b > G_MAXINT) return FALSE;
    *num = (gint)a;
    *den = (gint)b;
    return TRUE;
}

static gboolean positive_of(const char *s, gsize n, gint *value) {
    gint v = 0;
    if (n == 0 || n > 6) return FALSE;
    for (gsize i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return FALSE;
        v = v * 10 + (s[i] - '0');
    }
    *value = v;
    return v > 0;
}

gboolean y4m_parse_header(const char *line, gsize length, y4m_stream *stream, const char **why) {
    static const char magic[] = "YUV4MPEG2";
    if (length < sizeof magic - 1 || memcmp(line, magic, sizeof magic - 1) != 0) {
        *why = "it does not start with YUV4MPEG2";
        return FALSE;
    }
    gint width = 0, height = 0, fps_n = 0, fps_d = 0, par_n = 0, par_d = 0;
    GstVideoFormat format = GST_VIDEO_FORMAT_I420;
    GstVideoInterlaceMode interlace = GST_VIDEO_INTERLACE_MODE_PROGRESSIVE;
    GstVideoFieldOrder order = GST_VIDEO_FIELD_ORDER_UNKNOWN;
    for (gsize i = sizeof magic - 1; i < length;) {
        while (i < length && line[i] == ' ') i++;
        gsize start = i;
        while (i < length && line[i] != ' ') i++;
        if (i == start) break;
        const char *value = line + start + 1;
        gsize n = i - start - 1;
        switch (line[start]) {
            case 'W': if (!positive_of(value, n, &width)) { *why = "its width (W) is not a number"; return FALSE; } break;
            case 'H': if (!positive_of(value, n, &height)) { *why = "its height (H) is not a number"; return FALSE; } break;
            case 'F':
                if (!ratio_of(value, n, &fps_n, &fps_d) || fps_n == 0 || fps_d == 0) { *why = "its frame rate (F) is not a ratio such as 30:1"; return FALSE; }
                break;
            case 'A':
                if (!ratio_of(value, n, &par_n, &par_d)) { *why = "its pixel aspect ratio (A) is not a ratio such as 1:1"; return FALSE; }
                break;
            case 'I':
                if (n != 1) { *why = "its interlacing (I) is not p, t, b or m"; return FALSE; }
                if (value[0] == 't' || value[0] == 'b') {
                    interlace = GST_VIDEO_INTERLACE_MODE_INTERLEAVED;
                    order = value[0] == 't' ? GST_VIDEO_FIELD_ORDER_TOP_FIELD_FIRST : GST_VIDEO_FIELD_ORDER_BOTTOM_FIELD_FIRST;
                } else if (value[0] == 'm') {
                    interlace = GST_VIDEO_INTERLACE_MODE_MIXED;
                } else if (value[0] != 'p' && value[0] != '?') {
                    *why = "its interlacing (I) is not p, t, b or m";
                    return FALSE;
                }
                break;
            case 'C':
                format = format_of(value, n);
                if (format == GST_VIDEO_FORMAT_UNKNOWN) { *why = "its colour space (C) is not one GStreamer has a format for"; return FALSE; }
                break;
            default: break;  // X (application data) and tags of later versions
        }
    }
    if (width == 0 || height == 0) { *why = "it has no width (W) or height (H)"; return FALSE; }
    if (fps_n == 0) { *why = "it has no frame rate (F)"; return FALSE; }
    if (par_n == 0 || par_d == 0) par_n = par_d = 1;  // "A0:0", or none: unknown, taken as square

    GstVideoInfo *out = &stream->out;
    if (!gst_video_info_set_interlaced_format(out, format, interlace, (guint)width, (guint)height)) {
        *why = "its frame size is too large";
        return FALSE;
    }
    GST_VIDEO_INFO_FPS_N(out) = fps_n;
    GST_VIDEO_INFO_FPS_D(out) = fps_d;
    GST_VIDEO_INFO_PAR_N(out) = par_n;
    GST_VIDEO_INFO_PAR_D(out) = par_d;
    GST_VIDEO_INFO_FIELD_ORDER(out) = order;

    GstVideoInfo *packed = &stream->packed;
    *packed = *out;
    gsize offset = 0;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(out); p++) {
        gint stride = GST_VIDEO_INFO_COMP_WIDTH(out, p) * GST_VIDEO_INFO_COMP_PSTRIDE(out, p);
        packed->offset[p] = offset;
        packed->stride[p] = stride;
        offset += (gsize)stride * (gsize)GST_VIDEO_INFO_COMP_HEIGHT(out, p);
    }
    packed->size = offset;
    stream->same_layout = TRUE;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(out); p++) {
        if (packed->offset[p] != out->offset[p] || packed->stride[p] != out->stride[p]) stream->same_layout = FALSE;
    }
    return TRUE;
}

gboolean y4m_is_frame_line(const char *line, gsize length) {
    return length >= 5 && memcmp(line, "FRAME", 5) == 0 && (length == 5 || line[5] == ' ');
}
