"""13. Network streams (N2-N4): `gpick serve` at 720p30 read by ffmpeg viewers over RTSP/TCP. Its
CPU with one viewer and with ten (one encode shared by all), against ffmpeg encoding the same
test pattern with libx264 at serve-rtsp's settings; then 60 s at 1080p30 served to a viewer and
recorded at once, the recording's stamps read back. Glass-to-glass latency (N1) is not measured:
the test source's stamp says which frame, not when it was captured."""
import os
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


def served_cpu(b, n):
    """gpick serve's CPU, in % of one core over WINDOW seconds, with n viewers playing."""
    port = free_port()
    argv = [b.gpick, "serve", "--port", str(port), "--source", "test", "--width", str(WIDTH), "--height", str(HEIGHT),
            "--duration", str(WARMUP + WINDOW + 60)]
    with open(b.path(f"serve-{n}.log"), "wb") as err:
        server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, start_new_session=True)
    try:
        url = server.stdout.readline().decode().strip()
        if not url.startswith("rtsp://"):
            raise BenchError(f"stream: gpick serve printed no URL: {measure.tail(b.path(f'serve-{n}.log'))}")
        watching = viewers(url, n, b.path(f"viewers-{n}.log"))
        try:
            time.sleep(WARMUP)
            dead = [v for v in watching if v.poll() is not None]
            if dead:
                raise BenchError(f"stream: {len(dead)} of {n} viewers ended: {measure.tail(b.path(f'viewers-{n}.log'))}")
            c0, t0 = cpu_seconds(server.pid), time.monotonic()
            time.sleep(WINDOW)
            c1, t1 = cpu_seconds(server.pid), time.monotonic()
            playing = sum(1 for v in watching if v.poll() is None)
        finally:
            stop(watching)
    finally:
        stop([server])
    return {"viewers": n, "playing": playing, "cpu_percent": 100 * (c1 - c0) / (t1 - t0), "command": b.show(argv)}


def reference(b):
    """ffmpeg encoding WINDOW seconds of its own test pattern at the same size, rate and x264 settings."""
    argv = ["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=size={WIDTH}x{HEIGHT}:rate={FPS}",
            "-t", str(WINDOW), "-pix_fmt", "yuv420p", "-c:v", "libx264", *X264, "-f", "null", "-"]
    usage = measure.run(argv, timeout=300, log=b.path("stream-ffmpeg.log"))
    return {"run": usage.as_dict(), "cpu_per_video_second": usage.cpu / WINDOW, "command": b.show(argv)}


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


def run(b):
    b.log(f"stream: gpick serve {WIDTH}x{HEIGHT}@{FPS}, CPU over {WINDOW} s with 1 viewer, then 10")
    one, ten = served_cpu(b, 1), served_cpu(b, 10)
    b.log("stream: ffmpeg/libx264 on its own test pattern, same settings")
    ref = reference(b)
    b.log(f"stream: {LONG} s 1080p30 served and recorded at once")
    long = served_and_recorded(b)
    return {"width": WIDTH, "height": HEIGHT, "fps": FPS, "window": WINDOW, "one": one, "ten": ten,
            "ffmpeg": ref, "x264": " ".join(X264), "long": long}
