#include "cv4l2.h"
#include <errno.h>
#include <inttypes.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

static int xioctl(int fd, unsigned long request, void *arg) {
    int r;
    do { r = ioctl(fd, request, arg); } while (r == -1 && errno == EINTR);
    return r;
}

int cv4l2_next_control(int fd, uint32_t after, cv4l2_control *out) {
    struct v4l2_query_ext_ctrl q;
    memset(&q, 0, sizeof q);
    q.id = after | V4L2_CTRL_FLAG_NEXT_CTRL;
    if (xioctl(fd, VIDIOC_QUERY_EXT_CTRL, &q) == -1) return -1;
    memset(out, 0, sizeof *out);
    out->id = q.id;
    out->type = q.type;
    snprintf(out->name, sizeof out->name, "%s", q.name);
    out->minimum = q.minimum;
    out->maximum = q.maximum;
    out->default_value = q.default_value;
    out->step = q.step;
    out->flags = q.flags;
    return 0;
}

int cv4l2_menu_entry(int fd, uint32_t id, uint32_t type, uint32_t index, char *name, int size) {
    struct v4l2_querymenu m;
    memset(&m, 0, sizeof m);
    m.id = id;
    m.index = index;
    if (xioctl(fd, VIDIOC_QUERYMENU, &m) == -1) return -1;
    if (type == V4L2_CTRL_TYPE_INTEGER_MENU) snprintf(name, (size_t)size, "%" PRId64, (int64_t)m.value);
    else snprintf(name, (size_t)size, "%s", (const char *)m.name);
    return 0;
}

// 64-bit controls hold their value in value64; the others in the 32-bit value.
static int ext(int fd, unsigned long request, uint32_t id, uint32_t type, int64_t *value) {
    struct v4l2_ext_control c;
    struct v4l2_ext_controls cs;
    memset(&c, 0, sizeof c);
    memset(&cs, 0, sizeof cs);
    c.id = id;
    if (type == V4L2_CTRL_TYPE_INTEGER64) c.value64 = *value;
    else c.value = (int32_t)*value;
    cs.which = V4L2_CTRL_ID2WHICH(id);
    cs.count = 1;
    cs.controls = &c;
    if (xioctl(fd, request, &cs) == -1) return -1;
    *value = type == V4L2_CTRL_TYPE_INTEGER64 ? c.value64 : c.value;
    return 0;
}

int cv4l2_get(int fd, uint32_t id, uint32_t type, int64_t *value) {
    *value = 0;
    return ext(fd, VIDIOC_G_EXT_CTRLS, id, type, value);
}

int cv4l2_set(int fd, uint32_t id, uint32_t type, int64_t value) { return ext(fd, VIDIOC_S_EXT_CTRLS, id, type, &value); }

int cv4l2_query_capture(int fd, char *card, int size, int *captures) {
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    *captures = 0;
    if (size > 0) card[0] = 0;
    if (xioctl(fd, VIDIOC_QUERYCAP, &cap) < 0) return -1;
    uint32_t caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
    *captures = (caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE)) != 0;
    if (size > 0) snprintf(card, (size_t)size, "%.*s", (int)sizeof cap.card, (const char *)cap.card);
    return 0;
}
