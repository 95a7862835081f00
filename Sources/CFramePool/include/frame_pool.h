// A video buffer pool that gives back what a stall made it allocate.
//
// GStreamer's pools keep every buffer they ever allocated until they stop. A live session's
// source pool grows whenever frames pile up downstream (a recording's queue riding out a slow
// disk, an encoder that fell behind, a process stopped for a moment): about 30 frames more for
// each second an output's queue holds, 41 MiB at 720p, and it kept them for as long as the
// session ran. This pool keeps at most a few idle buffers and frees the others as they return.
#ifndef GPICK_FRAME_POOL_H
#define GPICK_FRAME_POOL_H

#include <gst/gst.h>

/// Answers the allocation query that reaches `pad` (a sink pad at the end of a source's stage)
/// with a video buffer pool that keeps at most `keep_idle` buffers it is not lending out. The
/// element upstream that allocates the frames (the source, a decoder, a converter) takes it.
/// A query that has a pool already, or is not for raw video, is left to the element.
void gpick_frame_pool_offer(GstPad *pad, guint keep_idle);

/// Buffers the pool of `pad`'s last answer freed on their return instead of keeping them, and
/// buffers it allocated (0 before a query was answered).
guint64 gpick_frame_pool_trimmed(GstPad *pad);
guint64 gpick_frame_pool_allocated(GstPad *pad);

#endif
