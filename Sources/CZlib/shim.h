// zlib's CRC-32, for checking PNG chunks before they are decoded (GpickImages/Vips/PNGChecksums).
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

#endif
