"""15b. Motion clips (M3): `gpick watch --record` at 1080p30 for WATCH seconds on the test source,
whose block moves for 3 s every 30 s (`moves=`): 20 motion events, each a clip with --pre 3 and
--post 5. gpick's RSS is read from /proc every SAMPLE seconds and a line fitted after WARMUP (the
ring and the allocator's arenas filled); each clip's stamps are read back: every frame from its
first to its last, at least --pre before its motion's first moving frame and --post after its
last."""
import json
import os
import subprocess
import time

from .. import events, measure
from ..measure import BenchError
from .soak import memory_kib, slope

WATCH = int(os.environ.get("GPICK_WATCH_SECONDS", "600"))
EVERY = 30       # seconds from one motion to the next
MOVES = 3        # seconds each motion lasts
FIRST = 10       # seconds before the first
PRE, POST = 3, 5
SAMPLE = 5
WARMUP = 60
FPS = 30


def motions():
    """(first, last) moving frame of each motion, by stamp."""
    out, t = [], FIRST
    while t + MOVES + POST + 5 < WATCH:
        out.append((t * FPS, (t + MOVES) * FPS - 1))
        t += EVERY
    return out


def clip_stamps(b, path):
    out = b.path("watchclips-inspect.json")
    measure.run([b.gpick, "inspect", path, "--stamps", "--json"], timeout=600, log=b.path("watchclips-inspect.err"), stdout=out)
    with open(out) as f:
        _, idx = events.stamp_indices(events.report_of(events.parse(f.read())))
    return idx


def run(b):
    folder = b.path("watchclips")
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        os.unlink(os.path.join(folder, name))
    truth = motions()
    ranges = ",".join(f"{a}-{z + 1}" for a, z in truth)
    argv = [b.gpick, "watch", "--source", f"test:colors?moves={ranges}", "--width", "1920", "--height", "1080", "--fps", str(FPS),
            "--record", folder, "--pre", str(PRE), "--post", str(POST), "--duration", str(WATCH), "--json"]
    b.log(f"motion clips: {WATCH} s of gpick watch --record at 1080p30, {len(truth)} motions")
    samples = []
    with open(b.path("watchclips-events.json"), "wb") as out, open(b.path("watchclips.log"), "wb") as err:
        started = time.monotonic()
        gpick = subprocess.Popen(argv, stdout=out, stderr=err, start_new_session=True)
        try:
            next_sample = started + SAMPLE
            while gpick.poll() is None:
                now = time.monotonic()
                if now >= next_sample:
                    reading = memory_kib(gpick.pid)
                    if reading:
                        samples.append({"t": now - started, **reading})
                    next_sample += SAMPLE
                if now - started > WATCH + 120:
                    raise BenchError(f"motion clips: gpick watch outlived its {WATCH} s by 2 minutes: {measure.tail(b.path('watchclips.log'))}")
                time.sleep(0.5)
        finally:
            if gpick.poll() is None:
                gpick.terminate()
                gpick.wait(timeout=30)
    if gpick.returncode != 0:
        raise BenchError(f"motion clips: gpick watch ended with status {gpick.returncode}: {measure.tail(b.path('watchclips.log'))}")
    with open(b.path("watchclips-events.json")) as f:
        evs = events.parse(f.read())
    written = [e for e in evs if e.get("event") == "file-written"]
    clips = []
    for e, (first_moving, last_moving) in zip(written, truth):
        idx = clip_stamps(b, e["path"])
        good = [i for i in idx if i is not None]
        clips.append({"file": os.path.basename(e["path"]), "frames": len(idx), "unreadable": idx.count(None),
                      "breaks": sum(1 for a, c in zip(idx, idx[1:]) if a is None or c is None or c != a + 1),
                      "before": (first_moving - good[0]) / FPS if good else None,
                      "after": (good[-1] - last_moving) / FPS if good else None})
    after = [s for s in samples if s["t"] >= WARMUP]
    return {"seconds": WATCH, "motions": len(truth), "pre": PRE, "post": POST, "command": b.show(argv),
            "samples": samples, "clips": clips,
            "rss_mib_per_hour": slope([(s["t"] / 3600, s["rss_kib"] / 1024) for s in after]),
            "anon_mib_per_hour": slope([(s["t"] / 3600, s["anon_kib"] / 1024) for s in after]),
            "file_mib_per_hour": slope([(s["t"] / 3600, s["file_kib"] / 1024) for s in after]),
            "anon_first_mib": after[0]["anon_kib"] / 1024 if after else None,
            "anon_last_mib": after[-1]["anon_kib"] / 1024 if after else None,
            "rss_first_mib": after[0]["rss_kib"] / 1024 if after else None,
            "rss_last_mib": after[-1]["rss_kib"] / 1024 if after else None,
            "rss_peak_mib": max((s["rss_kib"] for s in samples), default=0) / 1024}
