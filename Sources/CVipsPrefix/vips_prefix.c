// libvips loads every module in its folder as it starts (ImageMagick's, poppler's, OpenSlide's,
// with their dozens of libraries); gpick loads only the modules of the loaders it allows, when a
// file first needs one. libvips takes its module folder from a prefix named by an environment
// variable, and keeps the folder it was first asked for (vips_guess_libdir). So gpick asks first,
// naming a variable of its own that holds "/dev/null", under which no folder can exist.
//
// The variable is set here, as the process loads, before any thread exists, and never changed.
// gpick once set VIPSHOME around libvips' start instead, and removed it after: every program
// started meanwhile, by any thread, inherited it, and a gpick-library started that way took it
// for the user's own and read no HEIF, AVIF or JPEG XL ("truncated or damaged"). This variable
// means nothing to other programs, so those gpick runs may inherit it.
#include "vips_prefix.h"
#include <stdlib.h>
#include <string.h>

#define VARIABLE "GPICK_VIPS_PREFIX"
#define PREFIX "/dev/null"

static const char *chosen;

// The Swift runtime's own override of CommandLine.arguments (exported by libswiftCore): a
// statically linked runtime finds argv next to the process's original environment block, and
// setenv moves the environment to the heap (see CGpickStartup).
extern void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc);

// glibc passes (argc, argv, envp) to the executable's initialisers.
__attribute__((constructor)) static void gpick_vips_prefix_begin(int argc, char **argv, char **envp) {
    (void)envp;
    // Inherited from the gpick process that started this one: already as it should be.
    const char *inherited = getenv(VARIABLE);
    if (inherited && strcmp(inherited, PREFIX) == 0) {
        chosen = VARIABLE;
        return;
    }
    if (argv) _swift_stdlib_overrideUnsafeArgvArgc(argv, argc);
    if (setenv(VARIABLE, PREFIX, 1) == 0) chosen = VARIABLE;
}

const char *gpick_vips_prefix_variable(void) { return chosen; }
