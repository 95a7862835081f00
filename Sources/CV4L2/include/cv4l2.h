#ifndef GPICK_CV4L2_H
#define GPICK_CV4L2_H
// V4L2's control ioctls, each a few lines: Swift sees plain fields, never videodev2.h's unions.
#include <stdint.h>

typedef struct {
    uint32_t id;
    uint32_t type;      // V4L2_CTRL_TYPE_*: 1 int, 2 bool, 3 menu, 4 button, 5 int64, 6 class, 7 string, 8 bitmask, 9 intmenu
    char name[32];      // the description ("Exposure Time, Absolute")
    int64_t minimum, maximum, default_value;
    uint64_t step;
    uint32_t flags;     // V4L2_CTRL_FLAG_*: 0x1 disabled, 0x4 read-only, 0x10 inactive
} cv4l2_control;

// The control after `after` (0: the first), through VIDIOC_QUERY_EXT_CTRL with NEXT_CTRL. 0 on
// success; -1 with errno at the end (EINVAL) or on failure.
int cv4l2_next_control(int fd, uint32_t after, cv4l2_control *out);
// A menu entry's name, or an integer menu's value written as text. 0 on success.
int cv4l2_menu_entry(int fd, uint32_t id, uint32_t type, uint32_t index, char *name, int size);
// The current value and a new one, through the extended control ioctls (64-bit values). 0 on success.
int cv4l2_get(int fd, uint32_t id, uint32_t type, int64_t *value);
int cv4l2_set(int fd, uint32_t id, uint32_t type, int64_t value);

// What the device is (VIDIOC_QUERYCAP): its card name and whether it captures video. 0 on
// success; -1 with errno when it is no V4L2 device at all (ENOTTY).
int cv4l2_query_capture(int fd, char *card, int size, int *captures);

#endif
