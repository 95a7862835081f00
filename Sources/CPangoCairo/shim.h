// cairo and Pango for avatars (`gpick avatar`): a real 2D and text stack, with shaping for any
// script (HarfBuzz) and colour emoji (cairo's FreeType backend). Only gpick-avatar links them.
// Nothing here holds logic: helpers for what Swift cannot call as it stands.
#ifndef CPANGOCAIRO_SHIM_H
#define CPANGOCAIRO_SHIM_H

#include <pango/pangocairo.h>

// PANGO_SCALE is a macro of an int; Pango units are 1/1024 of a pixel at our 72 dpi-like use.
static inline int cpango_scale(void) { return PANGO_SCALE; }

#endif
