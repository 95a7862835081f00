// GLib for the media library: checksums (content hashes for import's de-duplication).
#ifndef CGLIB_SHIM_H
#define CGLIB_SHIM_H

#include <glib.h>

#endif
