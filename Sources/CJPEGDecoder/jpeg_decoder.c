// gpickjpegdec, the element: a GstVideoDecoder that decodes each frame with libjpeg straight into
// its output buffer's planes, and drops the frames libjpeg_frames.c finds damaged.
#include "jpeg_decoder.h"
#include "libjpeg_frames.h"

#include <string.h>
#include <gst/video/gstvideodecoder.h>

// MARK: the element

typedef struct {
    GstVideoDecoder parent;
    struct jpeg_decompress_struct cinfo;
    decode_error error;
    coefficient_check check;
    gboolean created;
    GstVideoCodecState *input;
    // The output state last set (0 wide: none yet), and its info.
    int width, height;
    GstVideoFormat format;
    GstVideoInfo out;
    GstVideoFrame frame;
    // Rows libjpeg writes that are not the frame's: past its bottom, past a row's end when the
    // plane's stride is narrower than the JPEG's whole blocks.
    guint8 *scratch;
    gsize scratch_size;
    guint64 damaged;
    GMutex lock;
    gpick_jpegdec_damaged_fn fn;
    void *context;
    void (*release)(void *);
} GpickJpegDec;

typedef struct {
    GstVideoDecoderClass parent;
} GpickJpegDecClass;

GType gpick_jpeg_dec_get_type(void);
G_DEFINE_TYPE(GpickJpegDec, gpick_jpeg_dec, GST_TYPE_VIDEO_DECODER)

// Width, height and rate present: a camera's, a stand-in's or a demuxed MJPEG stream's caps,
// one whole frame per buffer. A JPEG read from a file in pieces (typefind gives no rate) is left
// to jpegdec, which parses; GstVideoDecoder accepts caps only as a subset of this template.
static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("image/jpeg, width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ], "
                    "framerate = (fraction) [ 0/1, MAX ]"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE("{ I420, Y42B, Y444, Y41B, GRAY8, RGBx }")));

static void gpick_jpeg_dec_init(GpickJpegDec *self) {
    g_mutex_init(&self->lock);
    gst_video_decoder_set_packetized(GST_VIDEO_DECODER(self), TRUE);
    gst_video_decoder_set_needs_format(GST_VIDEO_DECODER(self), TRUE);
    // A frame that cannot be decoded is dropped here, never counted towards failing the stream.
    gst_video_decoder_set_max_errors(GST_VIDEO_DECODER(self), -1);
}

static void gpick_jpeg_dec_finalize(GObject *object) {
    GpickJpegDec *self = (GpickJpegDec *)object;
    if (self->release) self->release(self->context);
    g_mutex_clear(&self->lock);
    G_OBJECT_CLASS(gpick_jpeg_dec_parent_class)->finalize(object);
}

static gboolean gpick_jpeg_dec_start(GstVideoDecoder *decoder) {
    GpickJpegDec *self = (GpickJpegDec *)decoder;
    self->cinfo.err = gj_libjpeg.std_error(&self->error.pub);
    self->error.pub.error_exit = gj_stop;
    self->error.pub.emit_message = gj_message;
    self->error.pub.output_message = gj_output;
    if (setjmp(self->error.jump)) {
        GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("libjpeg could not start a decompressor: %s", self->error.reason), (NULL));
        return FALSE;
    }
    gj_libjpeg.create(&self->cinfo, JPEG_LIB_VERSION, sizeof self->cinfo);
    self->created = TRUE;
    self->width = 0;
    return TRUE;
}

static gboolean gpick_jpeg_dec_stop(GstVideoDecoder *decoder) {
    GpickJpegDec *self = (GpickJpegDec *)decoder;
    if (self->created) gj_libjpeg.destroy(&self->cinfo);
    self->created = FALSE;
    g_clear_pointer(&self->input, gst_video_codec_state_unref);
    g_clear_pointer(&self->scratch, g_free);
    self->scratch_size = 0;
    return TRUE;
}

static gboolean gpick_jpeg_dec_set_format(GstVideoDecoder *decoder, GstVideoCodecState *state) {
    GpickJpegDec *self = (GpickJpegDec *)decoder;
    g_clear_pointer(&self->input, gst_video_codec_state_unref);
    self->input = gst_video_codec_state_ref(state);
    self->width = 0;
    return TRUE;
}

static GstFlowReturn drop_damaged(GpickJpegDec *self, GstVideoCodecFrame *frame, const char *reason) {
    GST_DEBUG_OBJECT(self, "frame dropped: %s", reason);
    g_mutex_lock(&self->lock);
    self->damaged++;
    if (self->fn) self->fn(self->context, reason);
    g_mutex_unlock(&self->lock);
    gst_video_decoder_drop_frame(GST_VIDEO_DECODER(self), frame);
    return GST_FLOW_OK;
}

// Sets the output state for a frame of this size and format, when it differs from the last.
static GstFlowReturn follow_frame(GpickJpegDec *self, int width, int height, GstVideoFormat format) {
    if (self->width == width && self->height == height && self->format == format) return GST_FLOW_OK;
    GstVideoDecoder *decoder = GST_VIDEO_DECODER(self);
    GstVideoCodecState *state = gst_video_decoder_set_output_state(decoder, format, width, height, self->input);
    if (format != GST_VIDEO_FORMAT_RGBx && format != GST_VIDEO_FORMAT_GRAY8) {
        // JFIF: full-range BT.601, chroma centred between the samples (what jpegdec says too).
        state->info.chroma_site = GST_VIDEO_CHROMA_SITE_NONE;
        state->info.colorimetry.range = GST_VIDEO_COLOR_RANGE_0_255;
        state->info.colorimetry.matrix = GST_VIDEO_COLOR_MATRIX_BT601;
        state->info.colorimetry.transfer = GST_VIDEO_TRANSFER_UNKNOWN;
        state->info.colorimetry.primaries = GST_VIDEO_COLOR_PRIMARIES_UNKNOWN;
    }
    self->out = state->info;
    gst_video_codec_state_unref(state);
    if (!gst_video_decoder_negotiate(decoder)) return GST_FLOW_NOT_NEGOTIATED;
    self->width = width;
    self->height = height;
    self->format = format;
    return GST_FLOW_OK;
}

static guint8 *scratch(GpickJpegDec *self, gsize size) {
    if (self->scratch_size < size) {
        g_free(self->scratch);
        self->scratch = g_malloc(size);
        self->scratch_size = size;
    }
    return self->scratch;
}

// Planar output: libjpeg's raw data, one MCU row at a time, written into the planes where their
// rows are wide enough for the JPEG's whole blocks, else through scratch rows copied in.
static void read_planes(GpickJpegDec *self) {
    j_decompress_ptr cinfo = &self->cinfo;
    GstVideoFrame *out = &self->frame;
    int n = cinfo->num_components, group = cinfo->max_v_samp_factor * DCTSIZE;
    JSAMPROW rows[MAX_COMPONENTS][4 * DCTSIZE];
    JSAMPARRAY planes[MAX_COMPONENTS];
    int lines[MAX_COMPONENTS], padded[MAX_COMPONENTS];
    gsize offset[MAX_COMPONENTS], total = 0;
    gboolean direct = TRUE;
    for (int c = 0; c < n; c++) {
        lines[c] = cinfo->comp_info[c].v_samp_factor * DCTSIZE;
        padded[c] = (int)cinfo->comp_info[c].width_in_blocks * DCTSIZE;
        offset[c] = total;
        total += (gsize)lines[c] * (gsize)padded[c];
        direct = direct && GST_VIDEO_FRAME_COMP_STRIDE(out, c) >= padded[c];
        planes[c] = rows[c];
    }
    guint8 *spare = scratch(self, total);
    for (JDIMENSION y = 0; y < cinfo->output_height; y += (JDIMENSION)group) {
        int mcu_row = (int)y / group;
        for (int c = 0; c < n; c++) {
            guint8 *plane = GST_VIDEO_FRAME_COMP_DATA(out, c);
            int stride = GST_VIDEO_FRAME_COMP_STRIDE(out, c), height = GST_VIDEO_FRAME_COMP_HEIGHT(out, c);
            for (int r = 0; r < lines[c]; r++) {
                int line = mcu_row * lines[c] + r;
                rows[c][r] = direct && line < height ? plane + (gsize)line * (gsize)stride : spare + offset[c] + (gsize)r * (gsize)padded[c];
            }
        }
        gj_libjpeg.read_raw(cinfo, planes, (JDIMENSION)group);
        if (direct) continue;
        for (int c = 0; c < n; c++) {
            guint8 *plane = GST_VIDEO_FRAME_COMP_DATA(out, c);
            int stride = GST_VIDEO_FRAME_COMP_STRIDE(out, c), height = GST_VIDEO_FRAME_COMP_HEIGHT(out, c);
            int width = GST_VIDEO_FRAME_COMP_WIDTH(out, c);
            for (int r = 0; r < lines[c] && mcu_row * lines[c] + r < height; r++)
                memcpy(plane + (gsize)(mcu_row * lines[c] + r) * (gsize)stride, rows[c][r], (gsize)width);
        }
    }
}

static void read_pixels(GpickJpegDec *self) {
    j_decompress_ptr cinfo = &self->cinfo;
    guint8 *plane = GST_VIDEO_FRAME_PLANE_DATA(&self->frame, 0);
    int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&self->frame, 0);
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW row = plane + (gsize)cinfo->output_scanline * (gsize)stride;
        gj_libjpeg.read_scanlines(cinfo, &row, 1);
    }
}

static GstFlowReturn gpick_jpeg_dec_handle_frame(GstVideoDecoder *decoder, GstVideoCodecFrame *frame) {
    GpickJpegDec *self = (GpickJpegDec *)decoder;
    j_decompress_ptr cinfo = &self->cinfo;
    GstMapInfo in;
    if (!gst_buffer_map(frame->input_buffer, &in, GST_MAP_READ)) return drop_damaged(self, frame, "unreadable buffer");
    // Set after setjmp and read after a longjmp: volatile.
    volatile gboolean mapped = FALSE;
    if (setjmp(self->error.jump)) {
        gj_libjpeg.abort_decompress(cinfo);
        if (mapped) gst_video_frame_unmap(&self->frame);
        gst_buffer_unmap(frame->input_buffer, &in);
        return drop_damaged(self, frame, self->error.reason);
    }
    gj_libjpeg.memory_source(cinfo, in.data, in.size);
    gj_libjpeg.read_header(cinfo, TRUE);
    GstVideoFormat format = gj_output_format(cinfo);
    GstFlowReturn ret = GST_FLOW_NOT_NEGOTIATED;
    if (format == GST_VIDEO_FORMAT_UNKNOWN)
        GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("CMYK JPEG frames are not decoded by gpickjpegdec"), (NULL));
    else
        ret = follow_frame(self, (int)cinfo->image_width, (int)cinfo->image_height, format);
    if (ret == GST_FLOW_OK) ret = gst_video_decoder_allocate_output_frame(decoder, frame);
    if (ret == GST_FLOW_OK && !gst_video_frame_map(&self->frame, &self->out, frame->output_buffer, GST_MAP_WRITE)) {
        GST_ELEMENT_ERROR(self, RESOURCE, WRITE, ("the decoded frame's buffer could not be written"), (NULL));
        ret = GST_FLOW_ERROR;
    }
    if (ret != GST_FLOW_OK) {
        gj_libjpeg.abort_decompress(cinfo);
        gst_buffer_unmap(frame->input_buffer, &in);
        gst_video_decoder_drop_frame(decoder, frame);
        return ret;
    }
    mapped = TRUE;
    // As jpegdec decodes by default: libjpeg's fast integer IDCT, no upsampling of its own.
    cinfo->dct_method = JDCT_IFAST;
    cinfo->do_fancy_upsampling = FALSE;
    if (format == GST_VIDEO_FORMAT_RGBx) {
        cinfo->out_color_space = JCS_EXT_RGBX;
    } else {
        cinfo->raw_data_out = TRUE;
        cinfo->out_color_space = cinfo->jpeg_color_space;
    }
    gj_libjpeg.start(cinfo);
    gj_check_coefficients(cinfo, &self->check);
    if (format == GST_VIDEO_FORMAT_RGBx) read_pixels(self);
    else read_planes(self);
    gj_libjpeg.finish(cinfo);  // reads on to the end marker: stray data after the scan is a warning here
    mapped = FALSE;
    gst_video_frame_unmap(&self->frame);
    gst_buffer_unmap(frame->input_buffer, &in);
    return gst_video_decoder_finish_frame(decoder, frame);
}

// Interlaced MJPEG (two fields per buffer, each a JPEG, as some capture sticks send 1080i) is left
// to jpegdec, which joins the fields: decodebin asks before it takes an element.
static gboolean gpick_jpeg_dec_sink_query(GstVideoDecoder *decoder, GstQuery *query) {
    if (GST_QUERY_TYPE(query) == GST_QUERY_ACCEPT_CAPS) {
        GstCaps *caps = NULL;
        gst_query_parse_accept_caps(query, &caps);
        const GstStructure *s = caps && gst_caps_get_size(caps) > 0 ? gst_caps_get_structure(caps, 0) : NULL;
        const char *mode = s ? gst_structure_get_string(s, "interlace-mode") : NULL;
        if (mode && strcmp(mode, "progressive") != 0) {
            gst_query_set_accept_caps_result(query, FALSE);
            return TRUE;
        }
    }
    return GST_VIDEO_DECODER_CLASS(gpick_jpeg_dec_parent_class)->sink_query(decoder, query);
}

static void gpick_jpeg_dec_class_init(GpickJpegDecClass *klass) {
    GObjectClass *object = G_OBJECT_CLASS(klass);
    GstElementClass *element = GST_ELEMENT_CLASS(klass);
    GstVideoDecoderClass *decoder = GST_VIDEO_DECODER_CLASS(klass);
    object->finalize = gpick_jpeg_dec_finalize;
    gst_element_class_add_static_pad_template(element, &sink_template);
    gst_element_class_add_static_pad_template(element, &src_template);
    gst_element_class_set_static_metadata(element, "gpick's MJPEG decoder", "Codec/Decoder/Image",
        "Decodes a camera's JPEG frames with libjpeg-turbo, dropping those whose data is damaged",
        "gpick");
    decoder->start = gpick_jpeg_dec_start;
    decoder->stop = gpick_jpeg_dec_stop;
    decoder->set_format = gpick_jpeg_dec_set_format;
    decoder->handle_frame = gpick_jpeg_dec_handle_frame;
    decoder->sink_query = gpick_jpeg_dec_sink_query;
}

// MARK: the shim's calls

int gpick_jpegdec_register(guint rank) {
    static gsize once;
    static int registered;
    if (g_once_init_enter(&once)) {
        registered = gj_open() && gst_element_register(NULL, "gpickjpegdec", rank, gpick_jpeg_dec_get_type());
        g_once_init_leave(&once, 1);
    }
    return registered;
}

int gpick_jpegdec_is(GstElement *element) {
    return element && G_TYPE_CHECK_INSTANCE_TYPE(element, gpick_jpeg_dec_get_type());
}

void gpick_jpegdec_watch(GstElement *element, gpick_jpegdec_damaged_fn fn, void *context, void (*release)(void *)) {
    GpickJpegDec *self = (GpickJpegDec *)element;
    g_mutex_lock(&self->lock);
    void (*old_release)(void *) = self->release;
    void *old_context = self->context;
    self->fn = fn;
    self->context = context;
    self->release = release;
    g_mutex_unlock(&self->lock);
    if (old_release) old_release(old_context);
}

guint64 gpick_jpegdec_damaged(GstElement *element) {
    GpickJpegDec *self = (GpickJpegDec *)element;
    g_mutex_lock(&self->lock);
    guint64 n = self->damaged;
    g_mutex_unlock(&self->lock);
    return n;
}
