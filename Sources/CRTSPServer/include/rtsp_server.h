#ifndef GPICK_RTSP_SERVER_H
#define GPICK_RTSP_SERVER_H

#include <stddef.h>

/// gst-rtsp-server on a GLib main loop of its own thread. Every call here may come from any
/// thread; the server's work (clients, RTSP requests, media set-up) happens on that thread and
/// on gst-rtsp-server's own client threads.
typedef struct gpick_rtsp gpick_rtsp;

/// A mount's media came to life (`event` 1: its appsrc, a GstElement the caller refs to push
/// into, and its audio appsrc or NULL), went away (0: stop pushing, drop the refs), or has a
/// viewer who starts playing it (2: one who needs a keyframe). Told on the server's threads.
/// GStreamer types stay out of this header: Swift would see them as other types than GstCore's.
typedef void (*gpick_rtsp_media_fn)(void *context, void *appsrc, void *audio, int event);

/// A server listening on `address`:`port` (0: any free port). NULL when the address cannot be
/// bound, with GLib's reason in `error` and in `code`: 1 the port is in use, 2 it is not this
/// user's to bind, 3 gst-rtsp-server is not installed, 0 anything else (an address not of this
/// machine).
gpick_rtsp *gpick_rtsp_new(const char *address, int port, char *error, size_t error_size, int *code);
/// Whether gst-rtsp-server (libgstrtspserver-1.0.so.0) can be loaded.
int gpick_rtsp_available(void);
/// The port bound.
int gpick_rtsp_port(gpick_rtsp *server);
/// RTSP digest authentication: only `user` with `password` may open any mount (call before
/// mounting).
void gpick_rtsp_require(gpick_rtsp *server, const char *user, const char *password);
/// Serves `path` ("/cam") with the media `launch` describes (gst-rtsp-server's syntax, with an
/// appsrc named "src", and one named "asrc" for audio), one media shared by every client.
void gpick_rtsp_mount(gpick_rtsp *server, const char *path, const char *launch, gpick_rtsp_media_fn media,
                      void *context);
void gpick_rtsp_unmount(gpick_rtsp *server, const char *path);
/// A viewer's RTSP connection opened (`opened` 1) or closed (0): `id` numbers connections from 1
/// in the order they came, `address` is the viewer's IP. Told on the server's threads, never
/// after `gpick_rtsp_free` has returned.
typedef void (*gpick_rtsp_client_fn)(void *context, int opened, unsigned id, const char *address);
/// Hears every client connection open and close (call once, before mounting). `release` is
/// called with `context` once nothing can call `clients` any more: at the latest when the last
/// client object that heard of it is gone, which may be after the server was freed.
void gpick_rtsp_watch_clients(gpick_rtsp *server, gpick_rtsp_client_fn clients, void *context,
                              void (*release)(void *context));
/// Clients connected now.
unsigned gpick_rtsp_client_count(gpick_rtsp *server);
/// Closes every client and the listening socket, stops the loop and frees the server.
void gpick_rtsp_free(gpick_rtsp *server);

#endif
