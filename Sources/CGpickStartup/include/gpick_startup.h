#ifndef GPICK_STARTUP_H
#define GPICK_STARTUP_H

/// Whether the executable started GStreamer's initialisation on a thread of its own at load time.
int gpick_startup_init_started(void);

#endif
