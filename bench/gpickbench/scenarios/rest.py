"""11. The resting camera cell (K6-K8): the picker's page in headless Chromium with its camera
live, then the cell scrolled out of view until it rests, then back. bench/browser/picker_probe.py
reads the picker's CPU time from /proc over a live and a resting stretch, and times the wake-up
on the page's clock. Once with gpick's test source, once with a camera from a private PipeWire
(PipeWire's videotestsrc node), whose node state pw-dump reports meanwhile."""
import os
import statistics
import threading
import time

from .. import fixtures, measure, pickenv, pipewire
from ..measure import BenchError
from .picker import Picker, probe

RUNS = 3
SECONDS = 8
PHOTOS = 8
ARGS = ["--columns", "2", "--width", "1280", "--height", "720"]


def library(b):
    """A few photos below the camera cell, enough to scroll it out of view."""
    folder = b.path("rest-library")
    if not os.path.isdir(folder):
        os.makedirs(folder)
        fixtures.gst_frames(["pattern=ball"], PHOTOS, 1280, 960, os.path.join(folder, "photo-%02d.jpg"), b.path("rest-fixtures.log"))
    return folder


def watch_node(env, seen, stop):
    """The camera node's states, in order, each once per change."""
    while not stop.is_set():
        state = pipewire.node_state(env)
        if not seen or seen[-1] != state:
            seen.append(state)
        time.sleep(0.2)


def runs(b, root, source, env=None, node=None):
    out = []
    for i in range(RUNS):
        p = Picker(b, ["--library", root, "--source", source, *ARGS], b.path(f"rest-{source.split(':')[0]}-{i}.err"), env=env)
        seen, stop = [], threading.Event()
        watcher = threading.Thread(target=watch_node, args=(env, seen, stop), daemon=True) if node else None
        try:
            if watcher:
                watcher.start()
            answer = probe(b, p.url, "rest", p.process.pid, SECONDS, timeout=120)
        finally:
            stop.set()
            if watcher:
                watcher.join()
            p.stop()
        if node:
            answer["node_states"] = seen
        out.append(answer)
    return out


def summary(rs):
    keys = ("live_cpu_percent", "rest_cpu_percent", "rested_ms", "live_state_ms", "first_frame_ms")
    return {k: statistics.median(r[k] for r in rs) for k in keys} | {
        "blurred_shown_frames": max(r["blurred_shown_frames"] for r in rs)}


def run(b):
    for path in ("/usr/bin/chromium", "/usr/bin/chromedriver", "/usr/bin/pipewire", "/usr/bin/wireplumber", "/usr/bin/pw-dump"):
        if not os.access(path, os.X_OK):
            raise BenchError(f"rest: {path} is missing (make setup installs it)")
    root = library(b)
    with pickenv.private_home(b):
        measure.run([b.gpick, "library", "scan", "--library", root], timeout=300, log=b.path("rest-scan.err"))
        b.log(f"rest: the test source, {RUNS} page loads, {SECONDS} s live and {SECONDS} s resting each")
        test = runs(b, root, "test")
        b.log(f"rest: a PipeWire camera, {RUNS} page loads")
        with pipewire.daemon(b.path("pipewire"), b.path("rest-pipewire.log")) as env:
            pw = runs(b, root, f"pipewire:{pipewire.NODE}", env=env, node=True)
    return {"runs": RUNS, "seconds": SECONDS, "test": test, "pipewire": pw,
            "median": {"test": summary(test), "pipewire": summary(pw)},
            "command": b.show([b.gpick, "pick", "--ui", "web", "--no-open", "--library", root, "--source", "test", *ARGS])}

