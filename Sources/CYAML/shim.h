// libyaml (Debian's libyaml-dev): the event parser pipeline files are read with.
#ifndef CYAML_SHIM_H
#define CYAML_SHIM_H

#include <yaml.h>

#endif
