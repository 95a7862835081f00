// libpng's simplified API, for avatars: cairo's own PNG writer compresses at zlib's default
// level with adaptive filters, ~20 ms for a 500 px avatar; PNG_IMAGE_FLAG_FAST takes a few.
// Helpers for the macros Swift cannot import. Nothing here holds logic.
#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H

#include <png.h>

static inline png_uint_32 cpng_image_version(void) { return PNG_IMAGE_VERSION; }
static inline png_uint_32 cpng_format_rgba(void) { return PNG_FORMAT_RGBA; }
static inline png_uint_32 cpng_flag_fast(void) { return PNG_IMAGE_FLAG_FAST; }

#endif
