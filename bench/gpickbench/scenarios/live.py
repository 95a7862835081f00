"""5. Live photos at 1080p30: the extra memory of armed live mode (an H.264 encoder and a ring of
whole GOPs) over a plain session, shutter → all three outputs, and whether the stream keeps every
frame while live photos are written: with a recording running, and with an HTTP preview watched."""
import os
import statistics
import subprocess
import threading
import urllib.request

from .. import events, measure
from ..measure import BenchError


def session(b, mode, *extra):
    return [b.gpick, "session", "--mode", mode, "--source", "test", "--width", "1920", "--height", "1080",
            "--fps", "30", "--json", "--output-dir", b.path("live"), *extra]


def shots(prefix):
    return ["wait 2s", f"live {prefix}1", "wait 0.5s", f"live {prefix}2", "wait 0.5s", f"live {prefix}3"]


def clear(b):
    for name in os.listdir(b.path("live")):
        os.remove(b.path("live", name))


def watched(b, argv, script, log, out, seconds=8, timeout=120):
    """Runs a session whose script starts an HTTP preview, and reads the preview's stream (for
    `seconds`, as a viewer would) once the session prints its URL."""
    with open(script, "rb") as inp, open(log, "wb") as err, open(out, "w") as sink:
        proc = subprocess.Popen(argv, stdin=inp, stdout=subprocess.PIPE, stderr=err, text=True)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        viewer = None
        try:
            for line in proc.stdout:
                sink.write(line)
                url = next((e.get("url") for e in events.parse(line) if e.get("url")), None)
                if url and viewer is None:
                    viewer = threading.Thread(target=view, args=(url + "stream.mjpg", seconds), daemon=True)
                    viewer.start()
            code = proc.wait()
        finally:
            timer.cancel()
        if viewer:
            viewer.join(seconds + 5)
    if code != 0:
        raise BenchError(f"{b.show(argv)}: exit {code}\n{measure.tail(log)}")
    if viewer is None:
        raise BenchError(f"{b.show(argv)}: printed no preview URL")


def view(url, seconds):
    """Reads a stream for `seconds` or until it ends (the session stopped its preview)."""
    try:
        with urllib.request.urlopen(url, timeout=seconds) as stream:
            while stream.read(65536):
                pass
    except OSError:
        pass  # the preview stopped, or the timeout: the viewer has seen what it came for


def run(b):
    b.log("live photos at 1080p30")
    os.makedirs(b.path("live"), exist_ok=True)
    plain = b.script("plain.script", ["snap warm.jpg", "wait 5s"])
    rss = {}
    for mode in ("photo", "live"):
        got = []
        for i in range(3):
            clear(b)
            got.append(measure.run(session(b, mode), timeout=60, log=b.path("rss.err"), stdin=plain).maxrss_kib)
        rss[mode] = statistics.median(got)
    clear(b)
    measure.run(session(b, "live"), timeout=120, log=b.path("live.err"), stdin=b.script("live.script", shots("l")),
                stdout=b.path("live.json"))
    with open(b.path("live.json")) as f:
        latency = events.live_shutter_seconds(events.parse(f.read()))
    clear(b)
    # Two x264 encoders on two cores: slower, but no frame may go missing.
    recording = b.script("live-rec.script", ["record start rec.mp4", *shots("l"), "record stop"])
    measure.run(session(b, "live"), timeout=180, log=b.path("live.err"), stdin=recording, stdout=b.path("live-rec.json"))
    measure.run([b.gpick, "inspect", b.path("live", "rec.mp4"), "--stamps", "--json"], timeout=120,
                log=b.path("rec.err"), stdout=b.path("rec.json"))
    with open(b.path("rec.json")) as f:
        _, indices = events.stamp_indices(events.report_of(events.parse(f.read())))
    preview = b.script("live-prev.script", ["preview start http", *shots("p"), "wait 1s", "preview stop"])
    watched(b, session(b, "live", "--preview-port", "0"), preview, b.path("live.err"), b.path("live-prev.json"))
    with open(b.path("live-prev.json")) as f:
        previewed = events.preview_stopped(events.parse(f.read()))
    return {
        "commands": [f"printf 'wait 2s\\nlive l1\\nwait 0.5s\\nlive l2\\n…' | {b.show(session(b, 'live'))}",
                     f"printf 'record start rec.mp4\\nwait 2s\\nlive l1\\n…record stop\\n' | "
                     f"{b.gpick_shown} session --mode live (same options)",
                     f"printf 'preview start http\\nwait 2s\\nlive p1\\n…preview stop\\n' | "
                     f"{b.gpick_shown} session --mode live --preview-port 0 (same options), and a viewer on its stream"],
        "rss_photo_kib": rss["photo"], "rss_live_kib": rss["live"],
        "shutter_s": latency,
        "recording_frames": len(indices), "recording_consecutive": events.consecutive(indices),
        "preview": previewed,
    }
