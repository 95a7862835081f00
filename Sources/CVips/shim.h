// libvips loads ~100 shared libraries (ImageMagick, poppler, OpenEXR…): linked, it would add
// ~30 ms to every start of gpick-library, scans and listings included. So libvips is opened with
// dlopen on first use, and every call goes through a `cvips_` helper that finds its function
// once (dlsym). The helpers are also how Swift makes libvips' C varargs calls. Nothing here holds
// logic. Call cvips_load() first: with libvips absent it returns 0 and no helper may be called.
#ifndef CVIPS_SHIM_H
#define CVIPS_SHIM_H

#include <dlfcn.h>
#include <gmodule.h>
#include <vips/vips.h>

static inline void *cvips_handle(void) {
    static void *handle;
    void *h = __atomic_load_n(&handle, __ATOMIC_ACQUIRE);
    if (!h) {
        h = dlopen("libvips.so.42", RTLD_NOW | RTLD_GLOBAL);
        if (h) __atomic_store_n(&handle, h, __ATOMIC_RELEASE);
    }
    return h;
}

static inline int cvips_load(void) { return cvips_handle() != NULL; }

// The file libvips was loaded from (its modules are in a folder beside it), or NULL. dladdr and
// its Dl_info are GNU extensions the modular glibc headers leave out: the struct is glibc's
// (four fields, a stable ABI), and dladdr is found like libvips' own functions.
typedef struct { const char *dli_fname; void *dli_fbase; const char *dli_sname; void *dli_saddr; } cvips_dl_info;
static inline const char *cvips_library_file(void) {
    int (*dladdr_)(const void *, cvips_dl_info *) = (int (*)(const void *, cvips_dl_info *))dlsym(cvips_handle(), "dladdr");
    void *f = dlsym(cvips_handle(), "vips_init");
    cvips_dl_info info;
    return dladdr_ && f && dladdr_(f, &info) && info.dli_fname ? info.dli_fname : NULL;
}

// Loads one libvips module (a shared object that registers its operations when opened), kept
// for the process's life as libvips keeps its own. 1 on success.
static inline int cvips_load_module(const char *path) {
    __typeof__(&g_module_open) open_ = (__typeof__(&g_module_open))dlsym(cvips_handle(), "g_module_open");
    __typeof__(&g_module_make_resident) resident = (__typeof__(&g_module_make_resident))dlsym(cvips_handle(), "g_module_make_resident");
    if (!open_ || !resident) return 0;
    GModule *module = open_(path, G_MODULE_BIND_LAZY);
    if (!module) return 0;
    resident(module);
    return 1;
}

// The function `name` of libvips, found once per helper (a race only finds it twice).
#define CVIPS_FN(name) ({ \
    static __typeof__(&name) found_; \
    __typeof__(&name) f_ = __atomic_load_n(&found_, __ATOMIC_ACQUIRE); \
    if (!f_) { f_ = (__typeof__(&name))dlsym(cvips_handle(), #name); __atomic_store_n(&found_, f_, __ATOMIC_RELEASE); } \
    f_; })

// VIPS_INIT's ABI check, through the loaded library.
static inline int cvips_init(const char *argv0) {
    if (CVIPS_FN(vips_version)(3) - CVIPS_FN(vips_version)(5) != VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE) return -1;
    return CVIPS_FN(vips_init)(argv0);
}
// Asked before vips_init, this decides the folder libvips loads its modules from: it caches the
// answer, and vips_init asks it again (see CVipsPrefix).
static inline const char *cvips_guess_libdir(const char *argv0, const char *env_name) {
    return CVIPS_FN(vips_guess_libdir)(argv0, env_name);
}
static inline void cvips_unref(VipsImage *image) { if (image) g_object_unref(image); }
static inline void cvips_unref_source(VipsSource *source) { if (source) g_object_unref(source); }

// Plain calls.
static inline int cvips_version(int flag) { return CVIPS_FN(vips_version)(flag); }
static inline void cvips_cache_set_max(int n) { CVIPS_FN(vips_cache_set_max)(n); }
static inline void cvips_cache_set_max_mem(size_t n) { CVIPS_FN(vips_cache_set_max_mem)(n); }
static inline void cvips_cache_set_max_files(int n) { CVIPS_FN(vips_cache_set_max_files)(n); }
static inline void cvips_block_untrusted_set(gboolean state) { CVIPS_FN(vips_block_untrusted_set)(state); }
static inline void cvips_operation_block_set(const char *name, gboolean state) { CVIPS_FN(vips_operation_block_set)(name, state); }
static inline char *cvips_error_buffer_copy(void) { return CVIPS_FN(vips_error_buffer_copy)(); }
static inline const char *cvips_foreign_find_load_source(VipsSource *source) { return CVIPS_FN(vips_foreign_find_load_source)(source); }
static inline guint64 cvips_format_sizeof(VipsBandFormat format) { return CVIPS_FN(vips_format_sizeof)(format); }
static inline VipsImage *cvips_image_copy_memory(VipsImage *image) { return CVIPS_FN(vips_image_copy_memory)(image); }
static inline void *cvips_image_write_to_memory(VipsImage *image, size_t *size) { return CVIPS_FN(vips_image_write_to_memory)(image, size); }
static inline int cvips_image_get_bands(const VipsImage *image) { return CVIPS_FN(vips_image_get_bands)(image); }
static inline gchar **cvips_image_get_fields(VipsImage *image) { return CVIPS_FN(vips_image_get_fields)(image); }
static inline VipsBandFormat cvips_image_get_format(const VipsImage *image) { return CVIPS_FN(vips_image_get_format)(image); }
static inline int cvips_image_get_width(const VipsImage *image) { return CVIPS_FN(vips_image_get_width)(image); }
static inline int cvips_image_get_height(const VipsImage *image) { return CVIPS_FN(vips_image_get_height)(image); }
static inline int cvips_image_get_int(const VipsImage *image, const char *name, int *out) { return CVIPS_FN(vips_image_get_int)(image, name, out); }
static inline VipsInterpretation cvips_image_get_interpretation(const VipsImage *image) { return CVIPS_FN(vips_image_get_interpretation)(image); }
static inline int cvips_image_get_orientation(VipsImage *image) { return CVIPS_FN(vips_image_get_orientation)(image); }
static inline gboolean cvips_image_get_orientation_swap(VipsImage *image) { return CVIPS_FN(vips_image_get_orientation_swap)(image); }
static inline int cvips_image_get_string(const VipsImage *image, const char *name, const char **out) { return CVIPS_FN(vips_image_get_string)(image, name, out); }
static inline GType cvips_image_get_typeof(const VipsImage *image, const char *name) { return CVIPS_FN(vips_image_get_typeof)(image, name); }
static inline gboolean cvips_image_hasalpha(VipsImage *image) { return CVIPS_FN(vips_image_hasalpha)(image); }
static inline VipsImage *cvips_image_new_from_memory_copy(const void *data, size_t size, int width, int height, int bands, VipsBandFormat format) {
    return CVIPS_FN(vips_image_new_from_memory_copy)(data, size, width, height, bands, format);
}
static inline VipsSource *cvips_source_new_from_descriptor(int fd) { return CVIPS_FN(vips_source_new_from_descriptor)(fd); }
static inline VipsSource *cvips_source_new_from_memory(const void *data, size_t size) { return CVIPS_FN(vips_source_new_from_memory)(data, size); }

// Header only: loaders read pixels lazily, so this reads no more than the header.
static inline VipsImage *cvips_header_from_source(VipsSource *source) {
    return CVIPS_FN(vips_image_new_from_source)(source, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

// vips_thumbnail_source does not pass its fail_on to the loader in 8.14: loader options go in
// `loader_options` ("fail_on=error").
static inline int cvips_thumbnail_source(VipsSource *source, VipsImage **out, int width, int height,
                                         VipsInteresting crop, VipsSize size, const char *loader_options) {
    return CVIPS_FN(vips_thumbnail_source)(source, out, width, "height", height, "crop", crop, "size", size,
                                 "option_string", loader_options, NULL);
}

// A JPEG decoded at 1/shrink of its size by libjpeg itself (shrink-on-load: 2, 4 or 8), lazily.
static inline VipsImage *cvips_jpeg_from_source_shrunk(VipsSource *source, int shrink, const char *loader_options) {
    return CVIPS_FN(vips_image_new_from_source)(source, loader_options, "access", VIPS_ACCESS_SEQUENTIAL, "shrink", shrink, NULL);
}

static inline int cvips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height,
                                        VipsInteresting crop, VipsSize size) {
    return CVIPS_FN(vips_thumbnail_image)(in, out, width, "height", height, "crop", crop, "size", size, NULL);
}

static inline int cvips_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return CVIPS_FN(vips_colourspace)(in, out, space, NULL);
}
static inline int cvips_cast(VipsImage *in, VipsImage **out, VipsBandFormat format) {
    return CVIPS_FN(vips_cast)(in, out, format, NULL);
}
static inline int cvips_addalpha(VipsImage *in, VipsImage **out) { return CVIPS_FN(vips_addalpha)(in, out, NULL); }
static inline int cvips_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return CVIPS_FN(vips_extract_area)(in, out, left, top, width, height, NULL);
}
static inline int cvips_extract_bands(VipsImage *in, VipsImage **out, int first, int n) {
    return CVIPS_FN(vips_extract_band)(in, out, first, "n", n, NULL);
}
static inline int cvips_copy_as(VipsImage *in, VipsImage **out, VipsInterpretation interpretation) {
    return CVIPS_FN(vips_copy)(in, out, "interpretation", interpretation, NULL);
}
static inline int cvips_avg(VipsImage *in, double *out) { return CVIPS_FN(vips_avg)(in, out, NULL); }

// ImageSource: an EXIF thumbnail has no orientation of its own, so the photo's is set on it and
// applied (vips_autorot reads the field).
static inline void cvips_image_set_int(VipsImage *image, const char *name, int value) {
    CVIPS_FN(vips_image_set_int)(image, name, value);
}
static inline int cvips_autorot(VipsImage *in, VipsImage **out) { return CVIPS_FN(vips_autorot)(in, out, NULL); }

// 8-bit, not interlaced, no metadata at all (`strip`): the caller adds the text chunks it wants.
static inline int cvips_pngsave_buffer(VipsImage *in, void **buffer, size_t *length, int compression) {
    return CVIPS_FN(vips_pngsave_buffer)(in, buffer, length, "compression", compression, "interlace", FALSE,
                               "bitdepth", 8, "strip", TRUE, NULL);
}

// GLib (linked with libvips): the URI GIO gives a local path, and MD5 as lower-case hex.
static inline char *cvips_filename_to_uri(const char *path) { return g_filename_to_uri(path, NULL, NULL); }
static inline char *cvips_md5_hex(const char *text) { return g_compute_checksum_for_string(G_CHECKSUM_MD5, text, -1); }

// `gpick thumb`'s outputs: JPEG and WebP with no metadata at all (`strip`), pixels already upright.
static inline int cvips_jpegsave_buffer(VipsImage *in, void **buffer, size_t *length, int quality) {
    return CVIPS_FN(vips_jpegsave_buffer)(in, buffer, length, "Q", quality, "strip", TRUE, NULL);
}
static inline int cvips_webpsave_buffer(VipsImage *in, void **buffer, size_t *length, int quality) {
    return CVIPS_FN(vips_webpsave_buffer)(in, buffer, length, "Q", quality, "strip", TRUE, NULL);
}
// Alpha flattened onto a background colour (JPEG has no alpha).
static inline VipsArrayDouble *cvips_array_double_new(const double *array, int n) { return CVIPS_FN(vips_array_double_new)(array, n); }
static inline void cvips_array_double_unref(VipsArrayDouble *array) { if (array) CVIPS_FN(vips_area_unref)(VIPS_AREA(array)); }
static inline int cvips_flatten(VipsImage *in, VipsImage **out, VipsArrayDouble *background) {
    return CVIPS_FN(vips_flatten)(in, out, "background", background, NULL);
}

// Contact sheets (`gpick library sheet`): badge text (pango, through vips_text), masks drawn in
// memory, blends and the grid. Masks are one 8-bit band, 0 (none) to 255 (all).
static inline int cvips_text(VipsImage **out, const char *markup, const char *font, int dpi) {
    return CVIPS_FN(vips_text)(out, markup, "font", font, "dpi", dpi, NULL);
}
static inline int cvips_black(VipsImage **out, int width, int height, int bands) {
    return CVIPS_FN(vips_black)(out, width, height, "bands", bands, NULL);
}
// An image of `like`'s size and format with every pixel `c` (lazy: nothing is allocated).
static inline VipsImage *cvips_image_new_from_image(VipsImage *like, const double *c, int n) {
    return CVIPS_FN(vips_image_new_from_image)(like, c, n);
}
// Drawing changes `image` in place: only on a memory image nobody else holds yet.
static inline int cvips_draw_rect_fill(VipsImage *image, double *ink, int n, int left, int top, int width, int height) {
    return CVIPS_FN(vips_draw_rect)(image, ink, n, left, top, width, height, "fill", TRUE, NULL);
}
static inline int cvips_draw_circle_fill(VipsImage *image, double *ink, int n, int cx, int cy, int radius) {
    return CVIPS_FN(vips_draw_circle)(image, ink, n, cx, cy, radius, "fill", TRUE, NULL);
}
static inline int cvips_linear1_uchar(VipsImage *in, VipsImage **out, double a, double b) {
    return CVIPS_FN(vips_linear1)(in, out, a, b, "uchar", TRUE, NULL);
}
// Placed at (x, y) in a width × height image of zeros.
static inline int cvips_embed_black(VipsImage *in, VipsImage **out, int x, int y, int width, int height) {
    return CVIPS_FN(vips_embed)(in, out, x, y, width, height, "extend", VIPS_EXTEND_BLACK, NULL);
}
static inline int cvips_gravity(VipsImage *in, VipsImage **out, VipsCompassDirection direction, int width, int height,
                                VipsArrayDouble *background) {
    return CVIPS_FN(vips_gravity)(in, out, direction, width, height, "extend", VIPS_EXTEND_BACKGROUND,
                                  "background", background, NULL);
}
// out = cond/255 × in1 + (1 − cond/255) × in2: a mask's coverage as the blend.
static inline int cvips_ifthenelse_blend(VipsImage *cond, VipsImage *in1, VipsImage *in2, VipsImage **out) {
    return CVIPS_FN(vips_ifthenelse)(cond, in1, in2, out, "blend", TRUE, NULL);
}
static inline int cvips_arrayjoin(VipsImage **in, VipsImage **out, int n, int across, int shim, VipsArrayDouble *background) {
    return CVIPS_FN(vips_arrayjoin)(in, out, n, "across", across, "shim", shim, "background", background, NULL);
}

#endif
