"""N3: what gpick adds to its encoder. The stream section's raw 720p30 file served, recorded and
published by gpick, against one gst-launch-1.0 line doing the same work, and against ffmpeg with
identical x264 options. The gst-launch line is gpick's own text: source-file.yaml's stage (the
file decoded, converted and paced in real time by `identity sync=true`), the branch as
`gpick pipelines show` resolves it (queue, conversion, x264enc with its options, parser), and the
payloader or muxer gpick puts after it (rtph264pay to UDP for serve, mp4mux for record,
mpegtsmux to SRT for publish). ffmpeg is paced by -re. Every tool's CPU is read from /proc over
the same window once it plays, so start-up is left out alike; gpick serves one ffmpeg viewer
over RTSP/TCP, and publishes to an ffmpeg SRT listener, as the gst-launch line does.

gpick reads the y4m file with its own gpicky4mdec (one read a frame into a pooled buffer), which
gst-launch-1.0 cannot load: the line's decodebin takes y4mdec. So gpick is also run with
GStreamer's y4mdec (GST_PLUGIN_FEATURE_RANK=gpicky4mdec:NONE), for what the reader saves apart
from what gpick adds; the targets compare gpick as it runs."""
import os
import re
import shlex
import subprocess
import time

from .. import measure
from ..measure import BenchError
from .stream import FPS, HEIGHT, WIDTH, WARMUP, WINDOW, cpu_seconds, free_port, stop, viewers

# The x264 options of each of gpick's branches, in ffmpeg's words (x264enc's defaults as the
# branch files set them: see `gpick pipelines show NAME`). x264 writes its options into the
# stream (an SEI): with these, ffmpeg's string and x264enc's are the same, option for option.
FFMPEG_X264 = {
    # serve-rtsp / publish-srt: 4000 kbit/s CBR (x264enc's default: a VBV of 600 ms at the
    # bitrate), veryfast, zerolatency, one thread, no B-frames.
    "serve": ["-preset", "veryfast", "-tune", "zerolatency", "-b:v", "4000k", "-maxrate", "4000k", "-bufsize", "2400k", "-g", "60",
              "-threads", "1", "-bf", "0"],
    "publish": ["-preset", "veryfast", "-tune", "zerolatency", "-b:v", "4000k", "-maxrate", "4000k", "-bufsize", "2400k", "-g", "60",
                "-threads", "1", "-bf", "0"],
    # record-mp4: constant quality 21 (pass=qual) capped at 20 Mbit/s (VBV 600 ms), veryfast, zerolatency, High profile.
    "record": ["-preset", "veryfast", "-tune", "zerolatency", "-crf", "21", "-maxrate", "20000k", "-bufsize", "12000k", "-g", "60",
               "-profile:v", "high"],
}
BRANCH = {"serve": "serve-rtsp", "record": "record-mp4", "publish": "publish-srt"}


def branch_text(b, job):
    """The branch's video part as gpick resolves it: from its queue to its parser, no sink."""
    args = ["--set", "output=" + b.path("unused.mp4")] if job == "record" else []
    line = measure.output([b.gpick, "pipelines", "show", BRANCH[job], "--width", str(WIDTH), "--height", str(HEIGHT)] + args)
    start = line.index("queue name=video")
    end = line.index("! mp4mux" if job == "record" else "! appsink name=sink")
    return line[start:end].strip()


def source_text(b, src):
    """gpick's file source stage for `src` and the session's conversion to its format, as
    `gpick pipelines show source-file` prints them (less its test length and its sink)."""
    line = measure.output([b.gpick, "pipelines", "show", "source-file", "--set", f"path={src}",
                           "--width", str(WIDTH), "--height", str(HEIGHT), "--fps", str(FPS)])
    line = re.sub(r"^gst-launch-1\.0\s+(-e\s+)?", "", line)
    line = re.sub(r"\bnum-buffers=\d+\s+", "", line)
    if not line.endswith("! fakesink"):
        raise BenchError(f"n3: unexpected source-file line: {line}")
    return line[: -len("! fakesink")].strip().rstrip("!").strip()


def gst_line(b, job, src, port):
    tail = {"serve": f"rtph264pay config-interval=-1 pt=96 ! udpsink host=127.0.0.1 port={port} sync=false",
            "record": f"mp4mux reserved-moov-update-period=1000000000 ! filesink location={b.path('n3-gst.mp4')} sync=false",
            "publish": f"mpegtsmux alignment=7 ! srtsink uri=srt://127.0.0.1:{port}?mode=caller sync=false"}[job]
    return ["gst-launch-1.0", "-q"] + shlex.split(f"{source_text(b, src)} ! {branch_text(b, job)} ! {tail}")


def ffmpeg_line(b, job, src, port):
    out = {"serve": ["-f", "rtp", f"rtp://127.0.0.1:{port}"], "record": ["-y", b.path("n3-ffmpeg.mp4")],
           "publish": ["-f", "mpegts", f"srt://127.0.0.1:{port}?mode=caller"]}[job]
    return ["ffmpeg", "-nostdin", "-v", "error", "-re", "-i", src, "-an", "-pix_fmt", "yuv420p", "-c:v", "libx264",
            *FFMPEG_X264[job], *out]


def gpick_line(b, job, src, port):
    common = ["--source", f"file:{src}", "--width", str(WIDTH), "--height", str(HEIGHT)]
    return {"serve": [b.gpick, "serve", "--port", str(port), *common],
            "record": [b.gpick, "record", *common, "--duration", "3600", "-o", b.path("n3-gpick.mp4")],
            "publish": [b.gpick, "publish", f"srt://127.0.0.1:{port}", *common]}[job]


def srt_listener(b, port, name):
    with open(b.path(f"n3-{name}-listener.log"), "ab") as err:
        return subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-i", f"srt://127.0.0.1:{port}?mode=listener",
                                 "-c", "copy", "-f", "null", "-"], stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)


# gpick with GStreamer's y4mdec in place of its own reader.
Y4MDEC = "gpick-y4mdec"
Y4MDEC_ENV = {"GST_PLUGIN_FEATURE_RANK": "gpicky4mdec:NONE"}


def windowed(b, job, tool, argv, port):
    """The tool's CPU over WINDOW seconds once it has played for WARMUP, with its reader (an RTSP
    viewer, an SRT listener) attached; CPU per video second."""
    gpick = tool.startswith("gpick")
    env = {**os.environ, **Y4MDEC_ENV} if tool == Y4MDEC else None
    helpers = []
    if job == "publish":
        helpers.append(srt_listener(b, port, tool))
        time.sleep(0.5)
    with open(b.path(f"n3-{job}-{tool}.log"), "wb") as err:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE if gpick and job == "serve" else subprocess.DEVNULL,
                                stderr=err, start_new_session=True, env=env)
    try:
        if gpick and job == "serve":
            url = proc.stdout.readline().decode().strip()
            if not url.startswith("rtsp://"):
                raise BenchError(f"n3: gpick serve printed no URL: {measure.tail(b.path(f'n3-{job}-{tool}.log'))}")
            helpers += viewers(url, 1, b.path("n3-serve-viewer.log"))
        time.sleep(WARMUP)
        if proc.poll() is not None:
            raise BenchError(f"n3: {job} by {tool} ended early: {measure.tail(b.path(f'n3-{job}-{tool}.log'))}")
        c0, t0 = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(WINDOW)
        c1, t1 = cpu_seconds(proc.pid), time.monotonic()
        if proc.poll() is not None:
            raise BenchError(f"n3: {job} by {tool} ended within the window: {measure.tail(b.path(f'n3-{job}-{tool}.log'))}")
        if any(h.poll() is not None for h in helpers):
            raise BenchError(f"n3: the reader of {tool}'s {job} ended within the window")
    finally:
        stop([proc])
        stop(helpers)
    shown = b.show(argv) if env is None else " ".join(f"{k}={v}" for k, v in Y4MDEC_ENV.items()) + " " + b.show(argv)
    return {"cpu_per_video_second": (c1 - c0) / (t1 - t0), "command": shown}


def run(b, src):
    """Each job by each tool (gpick also with y4mdec), one after the other (three rounds, tools
    rotated each round; the median of each)."""
    jobs = {}
    for job in ("serve", "record", "publish"):
        port = free_port()
        lines = {"gpick": gpick_line(b, job, src, port), "gst-launch": gst_line(b, job, src, port),
                 "ffmpeg": ffmpeg_line(b, job, src, port), Y4MDEC: gpick_line(b, job, src, port)}
        runs = {tool: [] for tool in lines}
        order = list(lines)
        for r in range(3):
            for tool in order[r:] + order[:r]:
                runs[tool].append(windowed(b, job, tool, lines[tool], port))
        jobs[job] = {tool: {"runs": [x["cpu_per_video_second"] for x in rs],
                            "cpu_per_video_second": sorted(x["cpu_per_video_second"] for x in rs)[1],
                            "command": rs[0]["command"]} for tool, rs in runs.items()}
    return jobs
