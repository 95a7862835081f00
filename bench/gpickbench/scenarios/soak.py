"""14. The soak (S1): one `gpick script` session run as a door camera runs, for SOAK seconds at 720p30:
serving RTSP to three ffmpeg viewers, publishing over SRT to a listener (srt-live-transmit) that is
killed and started again every RESTART seconds, and a loop recording in PART-second parts kept for
KEEP. gpick's RSS and open descriptors are read from /proc every SAMPLE seconds and a line fitted to
each after WARMUP; RSS's through the mean of each CYCLE (a part boundary every minute, a listener
restart every other, each lifting RSS for a few seconds while an encoder starts: a line through the
single readings, every 10 s, moved by several MiB/hour from run to run with where those fell, more
than the 1 MiB/hour it is held to; the means take each cycle's transients alike). Each restart's reconnection is timed from the listener's start to gpick's
`publish-connected` event; the kept parts' stamps are read back, within and across parts, and
parts.json is read against the folder. The lines are fitted once the session is in its steady
state: from the first part the loop recording deletes (until then it is still filling its KEEP
window, and the allocator its arenas); the slope from WARMUP on is reported beside it."""
import json
import os
import subprocess
import time

from .. import events, measure
from ..measure import BenchError
from .stream import free_port, stop, viewers, cpu_seconds

# 45 minutes: the 20 the issue asks for give 13 minutes of steady state, six cycles' means, and a
# fitted slope whose standard error is about 2 MiB/hour, twice what it is held to (+1.10 ± 1.99 in
# such a run); 45 give 19 means and about ±0.3. GPICK_SOAK_SECONDS sets another length.
SOAK = int(os.environ.get("GPICK_SOAK_SECONDS", "2700"))
RESTART = 120   # seconds between the SRT listener's restarts
PART = 60       # seconds per recorded part
KEEP = "5m"     # the loop recording's --keep: parts deleted from minute 6 on, the steady state after
SAMPLE = 1      # seconds between /proc readings
CYCLE = 120     # seconds in which the session's transients repeat: two parts and one listener restart
WARMUP = 120    # seconds before the fitted lines start (caches, the first parts, the viewers)
WIDTH, HEIGHT, FPS = 1280, 720, 30


def listener(port, log):
    """An SRT listener that takes the stream and throws it away."""
    with open(log, "ab") as err:
        return subprocess.Popen(["srt-live-transmit", "-q", f"srt://:{port}?mode=listener&latency=200", "file://con"],
                                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)


def proc_reading(pid):
    """(RSS in KiB, open descriptors) of a process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        return rss, len(os.listdir(f"/proc/{pid}/fd"))
    except (FileNotFoundError, ProcessLookupError, StopIteration):
        return None


def memory_kib(pid):
    """RSS and its anonymous and file-backed parts (KiB) of a process, or None once it is gone:
    file-backed pages (the binary's and libraries' code) settle as code runs for the first time,
    anonymous ones are what a leak or the allocator's fragmentation grows."""
    try:
        with open(f"/proc/{pid}/status") as f:
            fields = {line.split(":")[0]: int(line.split()[1]) for line in f if line.startswith(("VmRSS:", "RssAnon:", "RssFile:"))}
        return {"rss_kib": fields["VmRSS"], "anon_kib": fields["RssAnon"], "file_kib": fields["RssFile"]}
    except (FileNotFoundError, ProcessLookupError, KeyError, ValueError):
        return None


def slope(points):
    """Least-squares slope of (x, y) points; 0 for fewer than two."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else 0.0


def cycle_means(samples, start, cycle, key="rss_kib"):
    """(middle of the cycle in s, mean of `key` over it) for each whole `cycle` seconds of samples from
    `start` on: a cycle is whole when the samples reach its end."""
    if not samples:
        return []
    end = samples[-1]["t"]
    out = []
    t = start
    while t + cycle <= end + 1e-9:
        inside = [s[key] for s in samples if t <= s["t"] < t + cycle]
        if inside:
            out.append((t + cycle / 2, sum(inside) / len(inside)))
        t += cycle
    return out


def slope_error(points):
    """Standard error of the least-squares slope of (x, y) points; None for fewer than three."""
    if len(points) < 3:
        return None
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    den = sum((x - mx) ** 2 for x, _ in points)
    if not den:
        return None
    b = sum((x - mx) * (y - my) for x, y in points) / den
    residual = sum((y - my - b * (x - mx)) ** 2 for x, y in points) / (n - 2)
    return (residual / den) ** 0.5


def parts_read_back(b, folder):
    """Each kept part's stamps: frames, breaks within it, and whether it starts where the part before it ended."""
    names = sorted(n for n in os.listdir(folder) if n.startswith("soak-") and n.endswith(".mp4"))
    out, previous_last = [], None
    for name in names:
        path = os.path.join(folder, name)
        measure.run([b.gpick, "inspect", path, "--stamps", "--json"], timeout=600, log=b.path("soak-inspect.err"),
                    stdout=b.path("soak-inspect.json"))
        with open(b.path("soak-inspect.json")) as f:
            report = events.report_of(events.parse(f.read()))
        _, idx = events.stamp_indices(report)
        good = [i for i in idx if i is not None]
        out.append({"file": name, "frames": len(idx), "unreadable": idx.count(None),
                    "first": good[0] if good else None, "last": good[-1] if good else None,
                    "breaks": sum(1 for a, c in zip(idx, idx[1:]) if a is None or c is None or c != a + 1),
                    "joins": previous_last is None or (good and good[0] == previous_last + 1)})
        previous_last = good[-1] if good else previous_last
    with open(os.path.join(folder, "parts.json")) as f:
        indexed = [p["file"] for p in json.load(f)["parts"]]
    return out, indexed == names


def run(b):
    folder = b.path("soak")
    os.makedirs(folder, exist_ok=True)
    rtsp, srt = free_port(), free_port()
    lines = ["serve start", f"publish start srt://127.0.0.1:{srt}?latency=200",
             f"record start soak.mp4 split {PART}s keep {KEEP}", f"wait {SOAK}s", "record stop", "publish stop", "serve stop"]
    script = b.script("soak.gpick", lines)
    argv = [b.gpick, "script", script, "--source", "test", "--width", str(WIDTH), "--height", str(HEIGHT), "--fps", str(FPS),
            "--rtsp-port", str(rtsp), "--output-dir", folder, "--json"]
    b.log(f"soak: {SOAK} s: serve to 3 viewers, publish over SRT (listener restarted every {RESTART} s), "
          f"a loop recording of {PART} s parts kept {KEEP}")
    listening = listener(srt, b.path("soak-listener.log"))
    restarts, samples, watching = [], [], []
    # The viewers are read while the session serves: its `serve stop` ends their streams, and
    # they exit with it (all three within a second of gpick, checked), so after gpick they are
    # gone whether or not they played the whole run.
    alive, viewer_lost = [], None
    with open(b.path("soak-events.json"), "wb") as out, open(b.path("soak.log"), "wb") as err:
        started = time.monotonic()
        gpick = subprocess.Popen(argv, stdout=out, stderr=err, start_new_session=True)
        try:
            next_sample, next_restart, viewers_at = started + SAMPLE, started + RESTART, started + 3
            while gpick.poll() is None:
                now = time.monotonic()
                if viewers_at and now >= viewers_at:
                    watching = viewers(f"rtsp://127.0.0.1:{rtsp}/cam", 3, b.path("soak-viewers.log"))
                    viewers_at = None
                if watching and now - started < SOAK - 5:
                    alive = [p.poll() is None for p in watching]
                    if not all(alive) and viewer_lost is None:
                        viewer_lost = now - started
                if now >= next_sample:
                    reading = proc_reading(gpick.pid)
                    if reading:
                        samples.append({"t": now - started, "rss_kib": reading[0], "fds": reading[1], "cpu_s": cpu_seconds(gpick.pid)})
                    next_sample += SAMPLE
                if now >= next_restart and now - started < SOAK - 30:
                    stop([listening])
                    listening = listener(srt, b.path("soak-listener.log"))
                    restarts.append(time.monotonic() - started)
                    next_restart += RESTART
                if now - started > SOAK + 300:
                    raise BenchError(f"soak: the session outlived its {SOAK} s by 5 minutes: {measure.tail(b.path('soak.log'))}")
                time.sleep(0.5)
        finally:
            stop([gpick, listening] + watching)
    if gpick.returncode != 0:
        raise BenchError(f"soak: the session ended with status {gpick.returncode}: {measure.tail(b.path('soak.log'))}")
    with open(b.path("soak-events.json")) as f:
        evs = events.parse(f.read())
    connected = [e["t"] for e in evs if e.get("event") == "publish-connected"]
    lost = [e for e in evs if e.get("event") == "publish-lost"]
    reconnects = [min((t - r for t in connected if t > r), default=None) for r in restarts]
    parts, indexed = parts_read_back(b, folder)
    first_deleted = min((e["t"] for e in evs if e.get("event") == "part-deleted"), default=None)
    steady_from = max(WARMUP, first_deleted or 0)
    after = [s for s in samples if s["t"] >= steady_from]
    hours = lambda s: s["t"] / 3600
    cycles = [(t / 3600, kib / 1024) for t, kib in cycle_means(samples, steady_from, CYCLE)]
    error = slope_error(cycles)
    return {"steady_from": steady_from, "cycle": CYCLE, "sample_every": SAMPLE,
            "rss_mib_per_hour_from_warmup": slope([(hours(s), s["rss_kib"] / 1024) for s in samples if s["t"] >= WARMUP]),
            "seconds": SOAK, "restart_every": RESTART, "part": PART, "keep": KEEP, "script": lines, "command": b.show(argv),
            "samples": samples, "viewers_alive": alive, "viewer_lost_at": viewer_lost,
            "cycles": [{"t": t * 3600, "rss_mib": m} for t, m in cycles],
            "rss_mib_per_hour": slope(cycles) if len(cycles) >= 2 else None,
            "rss_mib_per_hour_error": error,
            "rss_mib_per_hour_samples": slope([(hours(s), s["rss_kib"] / 1024) for s in after]),
            "fds_per_hour": slope([(hours(s), s["fds"]) for s in after]),
            "fds_first": after[0]["fds"] if after else None, "fds_last": after[-1]["fds"] if after else None,
            "rss_first_mib": after[0]["rss_kib"] / 1024 if after else None, "rss_last_mib": after[-1]["rss_kib"] / 1024 if after else None,
            "restarts": restarts, "reconnects": reconnects, "lost": len(lost),
            "written": sum(1 for e in evs if e.get("event") == "file-written"),
            "deleted": sum(1 for e in evs if e.get("event") == "part-deleted"),
            "parts": parts, "index_matches": indexed}
