"""10. The picker (K1-K5) on L1's library of 10,000 photos: the page in headless Chromium
(bench/browser/picker_probe.py times it with the page's own clock), the terminal picker in a
200×60 tmux pane, and the picker's peak memory while the page is scrolled through 1000 assets.

The library is indexed once; "warm" means gpick's thumbnails are in the shared cache (the
browser's own cache is off in every run), "cold" that the cache was emptied first."""
import json
import os
import shlex
import statistics
import subprocess
import threading
import time

from .. import fixtures, measure, pickenv
from ..measure import BenchError

PROBE = "bench/browser/picker_probe.py"
RUNS = 3
TERMINAL_RUNS = 5
SCROLL = 1000


class Picker:
    """A running `gpick pick --ui web --no-open`: its URL (with the token) and process."""

    def __init__(self, b, args, log, env=None):
        self.log = open(log, "w")
        self.process = subprocess.Popen([b.gpick, "pick", "--ui", "web", "--no-open", *args], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True, env={**(env or os.environ), "DISPLAY": ""})
        line = self.process.stderr.readline()
        self.log.write(line)
        if "token=" not in line:
            self.stop()
            raise BenchError(f"picker: gpick pick printed no URL: {line.strip()}")
        self.url = line.split()[-1]
        # Whatever else it says goes to the log, so a full pipe never stalls it.
        threading.Thread(target=lambda: self.log.writelines(self.process.stderr), daemon=True).start()

    def peak_rss_mib(self):
        with open(f"/proc/{self.process.pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def probe(b, url, step, *args, timeout=300, started=False):
    """`started`: the page is opened as soon as the browser has started, not once it is idle."""
    out = measure.output(["/usr/bin/python3", os.path.join(b.root, PROBE), url, step, *map(str, args)], timeout=timeout,
                         env={"STARTED": "1"} if started else None)
    answer = json.loads(out)
    if not answer.get("ok"):
        raise BenchError(f"picker: the page's {step} failed: {answer.get('error')}")
    return answer


def grid(b, home, root, cold, started=False, unsettled=None):
    """K1's page loads; `started`: each opened in a browser that has only just started.
    `unsettled` (a list) gets one entry per kept load whose browser was still busy after 10 s."""
    times = []
    for i in range(RUNS + 1):
        if cold:
            home.clear_thumbnails()
        p = Picker(b, ["--no-camera", "--library", root, "--columns", "8"], b.path(f"pick-grid-{i}.err"))
        try:
            answer = probe(b, p.url, "grid", 24, started=started)
        finally:
            p.stop()
        # The first warm run fills the cache (and the page cache) for the rest; it is not kept.
        if cold or i > 0:
            times.append(answer["ms"])
            if unsettled is not None and answer.get("settled") is False:
                unsettled.append(answer["settle_s"])
    return times[:RUNS]


def camera(b, root):
    firsts, snaps = [], []
    out = b.path("captures")
    os.makedirs(out, exist_ok=True)
    for i in range(RUNS):
        p = Picker(b, ["--library", root, "--columns", "8", "--source", "test", "--output-dir", out], b.path(f"pick-cam-{i}.err"))
        try:
            answer = probe(b, p.url, "camera")
        finally:
            p.stop()
        firsts.append(answer["ms"])
        snaps += answer["snaps"]
    if any(s < 0 for s in snaps):
        raise BenchError("picker: a photo taken in the camera cell never showed in the grid")
    return firsts, snaps


def terminal(b, root):
    """Start → the first whole grid (the picker's `shown` event), from a clock read just before
    gpick is started in the pane: gpick's own start-up counts."""
    sock = f"gpick-bench-pick-{os.getpid()}"
    times = []
    graphics = None
    for i in range(TERMINAL_RUNS + 1):
        t0, events = b.path(f"term-{i}.t0"), b.path(f"term-{i}.jsonl")
        starter = ("import os, sys, time; open(sys.argv[1], 'w').write(repr(time.clock_gettime(time.CLOCK_MONOTONIC))); "
                   "os.execv(sys.argv[2], sys.argv[2:])")
        argv = ["/usr/bin/python3", "-c", starter, t0, b.gpick, "pick", "--ui", "terminal", "--no-camera", "--library", root, "--json"]
        inner = f"{shlex.join(argv)} >{shlex.quote(events)} 2>{shlex.quote(b.path('term.err'))}; tmux -L {sock} wait-for -S done"
        measure.run(["tmux", "-L", sock, "new-session", "-d", "-s", "pick", "-x", "200", "-y", "60", inner],
                    timeout=30, log=b.path("tmux.log"))
        try:
            shown = None
            end = time.monotonic() + 30
            while shown is None and time.monotonic() < end:
                time.sleep(0.05)
                if os.path.exists(events):
                    with open(events) as f:
                        lines = [json.loads(x) for x in f if x.strip()]
                    shown = next((e for e in lines if e.get("event") == "shown"), None)
                    graphics = next((e.get("graphics") for e in lines if e.get("event") == "ready"), graphics)
            if shown is None:
                raise BenchError(f"picker: the terminal picker never showed its grid\n{measure.tail(b.path('term.err'))}")
            subprocess.run(["tmux", "-L", sock, "send-keys", "-t", "pick", "q"], capture_output=True)
            measure.run(["tmux", "-L", sock, "wait-for", "done"], timeout=30, log=b.path("tmux.log"))
        finally:
            subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True)
        with open(t0) as f:
            start = float(f.read())
        if i > 0:  # the first run makes the 128 px thumbnails the cells need
            times.append((shown["monotonic"] - start) * 1000)
    return times, graphics, shown["cells"]


def memory(b, root):
    p = Picker(b, ["--no-camera", "--library", root, "--columns", "8"], b.path("pick-scroll.err"))
    try:
        answer = probe(b, p.url, "scroll", SCROLL, timeout=1200)
        rss = p.peak_rss_mib()
    finally:
        p.stop()
    return {"painted": answer["painted"], "seconds": answer["seconds"], "peak_rss_mib": rss}


def run(b):
    for path in ("/usr/bin/chromium", "/usr/bin/chromedriver"):
        if not os.access(path, os.X_OK):
            raise BenchError(f"picker: {path} is missing (make setup installs chromium-driver)")
    root, manifest = fixtures.tree(b)
    with pickenv.private_home(b) as home:
        b.log("picker: indexing L1's tree")
        measure.run([b.gpick, "library", "scan", "--library", root], timeout=900, log=b.path("pick-scan.err"))
        b.log(f"picker: K1 the first 24 thumbnails, {RUNS} cold and {RUNS} warm page loads")
        unsettled = []
        cold = grid(b, home, root, cold=True, unsettled=unsettled)
        warm = grid(b, home, root, cold=False, unsettled=unsettled)
        b.log(f"picker: K1 warm again, {RUNS} page loads each in a browser that has only just started")
        started = grid(b, home, root, cold=False, started=True)
        b.log(f"picker: K2/K3 the camera cell, {RUNS} page loads with 3 photos each")
        firsts, snaps = camera(b, root)
        b.log(f"picker: K4 the terminal picker in tmux 200×60, {TERMINAL_RUNS} runs")
        term, graphics, cells = terminal(b, root)
        b.log(f"picker: K5 peak RSS while the page is scrolled through {SCROLL} assets")
        mem = memory(b, root)
    return {"assets": manifest["photos"] + manifest["videos"], "runs": RUNS,
            "grid_cold_ms": cold, "grid_warm_ms": warm, "grid_warm_started_ms": started,
            "grid_unsettled": len(unsettled), "camera_first_ms": firsts, "snap_ms": snaps,
            "terminal_ms": term, "terminal_graphics": graphics, "terminal_cells": cells, "memory": mem,
            "median": {k: statistics.median(v) for k, v in
                       (("grid_cold", cold), ("grid_warm", warm), ("camera", firsts), ("snap", snaps), ("terminal", term))},
            "command": b.show([b.gpick, "pick", "--ui", "web", "--no-open", "--no-camera", "--library", root, "--columns", "8"])}
