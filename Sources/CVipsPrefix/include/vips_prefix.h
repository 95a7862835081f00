#ifndef GPICK_VIPS_PREFIX_H
#define GPICK_VIPS_PREFIX_H

// The environment variable that holds the prefix gpick gives libvips ("/dev/null": no module
// folder can be under it), set as the process loads; NULL if it could not be set (libvips then
// loads its modules itself, as it does in any other program).
const char *gpick_vips_prefix_variable(void);

#endif
