// libexif, which writes the EXIF block of every still gpick takes (GpickFormats/Exif). The inline
// helpers make one entry each, as libexif's own contrib/examples/write-exif.c does: an entry
// whose data gpick sizes (text, bytes), added to one of the IFDs.
#ifndef CEXIF_SHIM_H
#define CEXIF_SHIM_H

#include <libexif/exif-data.h>
#include <libexif/exif-entry.h>
#include <libexif/exif-content.h>
#include <libexif/exif-utils.h>
#include <stdlib.h>
#include <string.h>

// A new, empty EXIF block in big-endian order, with no option that rewrites entries behind us.
static inline ExifData *cexif_new(void) {
    ExifData *ed = exif_data_new();
    if (!ed) return NULL;
    exif_data_unset_option(ed, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS);
    exif_data_unset_option(ed, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_set_data_type(ed, EXIF_DATA_TYPE_COMPRESSED);
    exif_data_set_byte_order(ed, EXIF_BYTE_ORDER_MOTOROLA);
    return ed;
}

// An entry of `format` with `components` values and `size` bytes of data, copied from `bytes`.
static inline int cexif_add(ExifData *ed, ExifIfd ifd, ExifTag tag, ExifFormat format,
                            unsigned long components, const void *bytes, unsigned int size) {
    ExifMem *mem = exif_mem_new_default();
    if (!mem) return -1;
    ExifEntry *e = exif_entry_new_mem(mem);
    void *data = size ? exif_mem_alloc(mem, size) : NULL;
    if (!e || (size && !data)) {
        if (data) exif_mem_free(mem, data);
        if (e) exif_entry_unref(e);
        exif_mem_unref(mem);
        return -1;
    }
    if (size) memcpy(data, bytes, size);
    e->data = data;
    e->size = size;
    e->tag = tag;
    e->components = components;
    e->format = format;
    exif_content_add_entry(ed->ifd[ifd], e);
    exif_entry_unref(e);
    exif_mem_unref(mem);
    return 0;
}

static inline int cexif_add_ascii(ExifData *ed, ExifIfd ifd, ExifTag tag, const char *text) {
    unsigned int n = (unsigned int)strlen(text) + 1;  // with its NUL, as EXIF counts ASCII
    return cexif_add(ed, ifd, tag, EXIF_FORMAT_ASCII, n, text, n);
}

static inline int cexif_add_short(ExifData *ed, ExifIfd ifd, ExifTag tag, unsigned short value) {
    unsigned char b[2];
    exif_set_short(b, EXIF_BYTE_ORDER_MOTOROLA, value);
    return cexif_add(ed, ifd, tag, EXIF_FORMAT_SHORT, 1, b, 2);
}

static inline int cexif_add_long(ExifData *ed, ExifIfd ifd, ExifTag tag, unsigned int value) {
    unsigned char b[4];
    exif_set_long(b, EXIF_BYTE_ORDER_MOTOROLA, value);
    return cexif_add(ed, ifd, tag, EXIF_FORMAT_LONG, 1, b, 4);
}

static inline int cexif_add_rational(ExifData *ed, ExifIfd ifd, ExifTag tag, unsigned int numerator, unsigned int denominator) {
    unsigned char b[8];
    ExifRational r = { numerator, denominator };
    exif_set_rational(b, EXIF_BYTE_ORDER_MOTOROLA, r);
    return cexif_add(ed, ifd, tag, EXIF_FORMAT_RATIONAL, 1, b, 8);
}

static inline int cexif_add_undefined(ExifData *ed, ExifIfd ifd, ExifTag tag, const void *bytes, unsigned int size) {
    return cexif_add(ed, ifd, tag, EXIF_FORMAT_UNDEFINED, size, bytes, size);
}

#endif
