"""A viewer for glass-to-glass latency (N1): it decodes a stream with GStreamer and prints, for
every decoded frame, the test source's stamp in it and when it was decoded, on CLOCK_MONOTONIC
(which gpick's `GST_DEBUG=gpick:6` log uses for when each stamp was drawn):

    /usr/bin/python3 glass.py URL SECONDS  →  lines "SOURCE:INDEX NANOSECONDS", or "- NANOSECONDS"

It needs Debian's python3-gi (make setup installs it), hence a script of its own rather than a
part of the bench, which may run under another Python. rtsp:// is read over TCP with no jitter
wait (rtspsrc latency=0): frames are handed on as they come, as a low-latency player does.
srt://:PORT listens (the publisher calls), with the URL's own latency. The decoder runs on one
thread: frame threads would hold frames back. Stamp reading follows the README's "Frame stamp"."""
import sys
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, Gst, GstVideo  # noqa: E402

DECODE = "h264parse ! avdec_h264 max-threads=1 ! videoconvert ! video/x-raw,format=I420 ! appsink name=out sync=false emit-signals=true"


def pipeline_for(url):
    if url.startswith("rtsp://"):
        return f'rtspsrc location="{url}" protocols=tcp latency=0 ! rtph264depay ! {DECODE}'
    if url.startswith("srt://"):
        return f'srtsrc uri="{url}" mode=listener ! tsdemux ! {DECODE}'
    raise SystemExit(f"glass.py: no reader for {url}")


def stamp(data, stride, width, height):
    """The stamp word's "id:index", or None: the mean of the middle half of each cell, >= 128 is 1."""
    c = max(4, min(width, height) // 24)
    if width < 16 * c or height < 2 * c:
        return None
    word = 0
    lo, hi = c // 4, c - c // 4
    for bit in range(32):
        row, col = divmod(bit, 16)
        total = count = 0
        for y in range(row * c + lo, row * c + hi, 2):
            line = y * stride + col * c
            cells = data[line + lo:line + hi:2]
            total += sum(cells)
            count += len(cells)
        word = (word << 1) | (1 if total >= 128 * count else 0)
    upper = word & 0xFFFFFF00
    check = ((upper >> 24) ^ (upper >> 16) ^ (upper >> 8) ^ 0xA5) & 0xFF
    if word & 0xFF != check:
        return None
    return f"{word >> 28}:{(word >> 8) & 0xFFFFF}"


def main():
    url, seconds = sys.argv[1], float(sys.argv[2])
    Gst.init(None)
    pipeline = Gst.parse_launch(pipeline_for(url))
    loop = GLib.MainLoop()
    out = sys.stdout

    def on_sample(sink):
        sample = sink.emit("pull-sample")
        now = time.monotonic_ns()
        info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
        buf = sample.get_buffer()
        ok, m = buf.map(Gst.MapFlags.READ)
        if ok:
            try:
                s = stamp(m.data, info.stride[0], info.width, info.height)
            finally:
                buf.unmap(m)
            out.write(f"{s or '-'} {now}\n")
        return Gst.FlowReturn.OK

    pipeline.get_by_name("out").connect("new-sample", on_sample)
    bus = pipeline.get_bus()
    bus.add_signal_watch()

    def on_message(_bus, message):
        if message.type == Gst.MessageType.ERROR:
            err, _ = message.parse_error()
            print(f"glass.py: {err.message}", file=sys.stderr)
            loop.quit()
        elif message.type == Gst.MessageType.EOS:
            loop.quit()

    bus.connect("message", on_message)
    pipeline.set_state(Gst.State.PLAYING)
    GLib.timeout_add(int(seconds * 1000), loop.quit)
    loop.run()
    pipeline.set_state(Gst.State.NULL)
    out.flush()


if __name__ == "__main__":
    main()
