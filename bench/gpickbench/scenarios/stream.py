"""13. Network streams (N2-N4): `gpick serve` at 720p30 read by ffmpeg viewers over RTSP/TCP. Its
CPU with one viewer and with ten (one encode shared by all); then, as recording's comparison
does, gpick serving a raw 720p file against ffmpeg encoding the same file with libx264 at
serve-rtsp's settings; then 60 s at 1080p30 served to a viewer and recorded at once, the
recording's stamps read back. Glass-to-glass latency (N1): gpick's log says when it drew each
frame's stamp (`GST_DEBUG=gpick:6`, CLOCK_MONOTONIC), a GStreamer viewer (glass.py) when it decoded
it; over RTSP for GLASS seconds, and over SRT to a listener with SRT_LATENCY ms."""
import os
import re
import socket
import subprocess
import threading
import time

from .. import events, measure
from ..measure import BenchError

WIDTH, HEIGHT, FPS = 1280, 720, 30
WINDOW = 15        # seconds of gpick's CPU read from /proc, once the viewers play
WARMUP = 4         # seconds for the viewers to connect and the encoder to settle
LONG = 60          # the 1080p30 serve + record run
GLASS = 60         # seconds an RTSP viewer decodes for N1 (and every stamp in order)
GLASS_SRT = 20     # the same over SRT
SRT_LATENCY = 200  # ms, publish-srt's default
# glass.py needs GStreamer's Python bindings: Debian's python3-gi, for /usr/bin/python3.
GI_PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"
GLASS_PY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "glass.py")
DRAWN = re.compile(rb"stamp (\d+:\d+) drawn at monotonic (\d+)")
# serve-rtsp.yaml's defaults, given to ffmpeg's libx264 as well.
X264 = ["-preset", "veryfast", "-tune", "zerolatency", "-b:v", "4000k", "-threads", "1", "-g", "60"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    """User + system CPU of a process and all its threads so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def viewers(url, n, log):
    """n ffmpeg viewers reading the stream over TCP, decoding nothing (as an NVR records)."""
    with open(log, "ab") as err:
        return [subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-rtsp_transport", "tcp", "-i", url, "-c", "copy", "-f", "null", "-"],
                                 stdout=subprocess.DEVNULL, stderr=err, start_new_session=True) for _ in range(n)]


def stop(processes):
    for p in processes:
        if p.poll() is None:
            p.terminate()
    for p in processes:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def served_cpu(b, n, source="test", tag=""):
    """gpick serve's CPU, in % of one core over WINDOW seconds, with n viewers playing."""
    port = free_port()
    argv = [b.gpick, "serve", "--port", str(port), "--source", source, "--width", str(WIDTH), "--height", str(HEIGHT),
            "--duration", str(WARMUP + WINDOW + 60)]
    log = f"serve-{n}{tag}"
    with open(b.path(f"{log}.log"), "wb") as err:
        server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, start_new_session=True)
    try:
        url = server.stdout.readline().decode().strip()
        if not url.startswith("rtsp://"):
            raise BenchError(f"stream: gpick serve printed no URL: {measure.tail(b.path(f'{log}.log'))}")
        watching = viewers(url, n, b.path(f"viewers-{n}{tag}.log"))
        try:
            time.sleep(WARMUP)
            dead = [v for v in watching if v.poll() is not None]
            if dead:
                raise BenchError(f"stream: {len(dead)} of {n} viewers ended: {measure.tail(b.path(f'viewers-{n}{tag}.log'))}")
            c0, t0 = cpu_seconds(server.pid), time.monotonic()
            time.sleep(WINDOW)
            c1, t1 = cpu_seconds(server.pid), time.monotonic()
            playing = sum(1 for v in watching if v.poll() is None)
        finally:
            stop(watching)
    finally:
        stop([server])
    return {"viewers": n, "playing": playing, "cpu_percent": 100 * (c1 - c0) / (t1 - t0), "command": b.show(argv)}


def raw_source(b):
    """WARMUP + WINDOW + 5 s of raw 720p30 for both tools: scrolling SMPTE bars (moving detail for
    the encoder), as y4m."""
    path = b.path("stream-src.y4m")
    frames = (WARMUP + WINDOW + 5) * FPS
    measure.run(["gst-launch-1.0", "-q", "videotestsrc", "pattern=smpte", "horizontal-speed=4", f"num-buffers={frames}", "!",
                 f"video/x-raw,width={WIDTH},height={HEIGHT},framerate={FPS}/1,format=I420", "!", "y4menc", "!",
                 "filesink", f"location={path}"], timeout=300, log=b.path("stream-src.log"))
    os.sync()  # written out now, not while a tool is being timed
    return path, frames


def reference(b, src, frames):
    """ffmpeg encoding the same raw file with libx264 at serve-rtsp's settings, as fast as it can."""
    argv = ["ffmpeg", "-nostdin", "-v", "error", "-i", src, "-pix_fmt", "yuv420p", "-c:v", "libx264", *X264, "-f", "null", "-"]
    usage = measure.run(argv, timeout=300, log=b.path("stream-ffmpeg.log"))
    return {"run": usage.as_dict(), "cpu_per_video_second": usage.cpu / (frames / FPS), "command": b.show(argv)}


def encoder_alone(b, src, frames):
    """GStreamer's x264enc at serve-rtsp's settings on the same raw file, as fast as it can, with
    nothing else: what the encoder itself costs beside ffmpeg's libx264 (the same library)."""
    argv = ["gst-launch-1.0", "-q", "filesrc", f"location={src}", "!", "y4mdec", "!", "x264enc", "threads=1", "bitrate=4000",
            "key-int-max=60", "speed-preset=veryfast", "tune=zerolatency", "!", "fakesink"]
    usage = measure.run(argv, timeout=300, log=b.path("stream-x264enc.log"))
    return {"run": usage.as_dict(), "cpu_per_video_second": usage.cpu / (frames / FPS), "command": b.show(argv)}


def served_and_recorded(b):
    """LONG seconds at 1080p30: a script serves the session and records it; one viewer watches."""
    port = free_port()
    script = b.script("stream.gpick", ["serve start", f"record {LONG}s served.mp4", "serve stop"])
    movie = b.path("served.mp4")
    argv = [b.gpick, "script", script, "--source", "test:ball", "--width", "1920", "--height", "1080", "--fps", "30",
            "--rtsp-port", str(port), "--output-dir", b.path()]
    watching = []

    def watch():
        time.sleep(2)  # the script's first line starts the session and the server
        watching.extend(viewers(f"rtsp://127.0.0.1:{port}/cam", 1, b.path("stream-long-viewer.log")))

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    try:
        usage = measure.run(argv, timeout=LONG * 3 + 60, log=b.path("stream-long.log"))
    finally:
        t.join()
        stop(watching)
    inspect = [b.gpick, "inspect", movie, "--stamps", "--json"]
    measure.run(inspect, timeout=600, log=b.path("stream-inspect.err"), stdout=b.path("stream-inspect.json"))
    with open(b.path("stream-inspect.json")) as f:
        report = events.report_of(events.parse(f.read()))
    os.remove(movie)
    return {"command": b.show(argv), "script": ["serve start", f"record {LONG}s served.mp4", "serve stop"],
            "run": usage.as_dict(), "expected_frames": LONG * 30, "stamps": events.stamp_continuity(report, LONG * 30)}


def latencies(b, log, seen):
    """Per decoded frame, drawn → decoded in ms, from gpick's log and the viewer's lines; and
    whether the viewer's stamps run in order without a gap."""
    drawn = {}
    with open(b.path(log), "rb") as f:
        for line in f:
            m = DRAWN.search(line)
            if m:
                drawn[m.group(1).decode()] = int(m.group(2))
    ms, indices, unreadable = [], [], 0
    with open(b.path(seen)) as f:
        for line in f:
            stamp, at = line.split()
            if stamp == "-":
                unreadable += 1
                continue
            indices.append(int(stamp.split(":")[1]))
            if stamp in drawn:
                ms.append((int(at) - drawn[stamp]) / 1e6)
    if not ms:
        raise BenchError(f"stream: the viewer decoded no stamped frame: {measure.tail(b.path(seen))}")
    ordered = sorted(ms)
    return {"frames": len(indices) + unreadable, "unreadable": unreadable, "matched": len(ms),
            "first": indices[0] if indices else None, "last": indices[-1] if indices else None,
            "breaks": sum(1 for a, c in zip(indices, indices[1:]) if c != a + 1),
            "median_ms": ordered[len(ordered) // 2], "p95_ms": ordered[int(len(ordered) * 0.95)], "max_ms": ordered[-1],
            "min_ms": ordered[0]}


def viewer(b, url, seconds, name):
    with open(b.path(f"{name}.out"), "wb") as out, open(b.path(f"{name}.err"), "wb") as err:
        return subprocess.Popen([GI_PYTHON, GLASS_PY, url, str(seconds)], stdout=out, stderr=err, start_new_session=True)


def glass_rtsp(b):
    """gpick serve at 720p30 and one decoding viewer for GLASS seconds."""
    port = free_port()
    argv = [b.gpick, "serve", "--port", str(port), "--source", "test", "--width", str(WIDTH), "--height", str(HEIGHT),
            "--duration", str(GLASS + 30)]
    env = dict(os.environ, GST_DEBUG="gpick:6", GST_DEBUG_NO_COLOR="1")
    with open(b.path("glass-serve.log"), "wb") as err:
        server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, env=env, start_new_session=True)
    try:
        url = server.stdout.readline().decode().strip()
        if not url.startswith("rtsp://"):
            raise BenchError(f"stream: gpick serve printed no URL: {measure.tail(b.path('glass-serve.log'))}")
        watching = viewer(b, url, GLASS, "glass-rtsp")
        watching.wait(timeout=GLASS + 30)
    finally:
        stop([server])
    return {"command": "GST_DEBUG=gpick:6 " + b.show(argv), "viewer": f"glass.py {url} {GLASS}", "seconds": GLASS,
            **latencies(b, "glass-serve.log", "glass-rtsp.out")}


def glass_srt(b):
    """gpick publish over SRT (caller) to a decoding listener, for GLASS_SRT seconds."""
    port = free_port()
    listening = viewer(b, f"srt://:{port}?latency={SRT_LATENCY}", GLASS_SRT + 5, "glass-srt")
    time.sleep(1)  # the listener's socket opens as its pipeline starts
    argv = [b.gpick, "publish", f"srt://127.0.0.1:{port}?latency={SRT_LATENCY}", "--source", "test",
            "--width", str(WIDTH), "--height", str(HEIGHT), "--duration", str(GLASS_SRT)]
    env = dict(os.environ, GST_DEBUG="gpick:6", GST_DEBUG_NO_COLOR="1")
    try:
        with open(b.path("glass-publish.log"), "wb") as err:
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=err, env=env, timeout=GLASS_SRT + 30)
        listening.wait(timeout=30)
    finally:
        stop([listening])
    return {"command": "GST_DEBUG=gpick:6 " + b.show(argv), "viewer": f"glass.py srt://:{port}?latency={SRT_LATENCY} {GLASS_SRT + 5}",
            "seconds": GLASS_SRT, "latency_ms": SRT_LATENCY, **latencies(b, "glass-publish.log", "glass-srt.out")}


def run(b):
    b.log(f"stream: gpick serve {WIDTH}x{HEIGHT}@{FPS}, CPU over {WINDOW} s with 1 viewer, then 10")
    one, ten = served_cpu(b, 1), served_cpu(b, 10)
    b.log("stream: a raw 720p file served by gpick (1 viewer) and encoded by ffmpeg/libx264, same settings")
    src, frames = raw_source(b)
    from_file = served_cpu(b, 1, source=f"file:{src}", tag="-file")
    ref = reference(b, src, frames)
    alone = encoder_alone(b, src, frames)
    b.log("stream: N3, serve, record and publish of the raw file by gpick, the same gst-launch line and ffmpeg")
    from . import encoder_cost  # it reuses this module's helpers
    own = encoder_cost.run(b, src)
    os.remove(src)
    b.log(f"stream: {LONG} s 1080p30 served and recorded at once")
    long = served_and_recorded(b)
    b.log(f"stream: glass-to-glass, {GLASS} s over RTSP, then {GLASS_SRT} s over SRT")
    glass = {"rtsp": glass_rtsp(b), "srt": glass_srt(b)}
    return {"glass": glass, "width": WIDTH, "height": HEIGHT, "fps": FPS, "window": WINDOW, "one": one, "ten": ten,
            "from_file": from_file, "ffmpeg": ref, "x264enc": alone, "x264": " ".join(X264), "long": long, "own_cost": own}
