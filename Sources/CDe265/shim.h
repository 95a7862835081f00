// libde265, the HEVC decoder libheif itself uses: gpick decodes a large HEIF grid's tiles one by
// one with it (GpickImages/Vips/HEIFTiles.swift), so a 200 MP photo is never held whole.
#ifndef CDE265_SHIM_H
#define CDE265_SHIM_H

#include <libde265/de265.h>

#endif
