"""1. `gpick snap` of one 1080p JPEG, whole-process wall time, against the same work as one
gst-launch line (the target), the minimal gst-launch line and ffmpeg, timed by hyperfine.

The runs are split into rounds with the tools' order rotated each round, so drift in the machine's
speed hits every tool alike; a round during which the VM's host took >= 10 % of the CPU time is
timed again (it measures the host, and it stretches gpick's two-thread start more than the
one-thread lines)."""
import os
import statistics

from .. import machine
from ..measure import BenchError, hyperfine, probe

STEAL_LIMIT = 10.0
RUNS_PER_ROUND = 10
TOOLS = ("gpick", "gst", "gstmin", "ffmpeg")


def commands(b):
    size = ["video/x-raw,width=1920,height=1080,format=I420"]
    return {
        "gpick": [b.gpick, "snap", "--source", "test", "--width", "1920", "--height", "1080", "-o", b.path("snap-gpick.jpg")],
        # What gpick's snap does: its test source is a live videotestsrc (it stands in for a camera:
        # the frame comes when the clock says), and its input stage converts and scales.
        "gst": ["gst-launch-1.0", "-q", "videotestsrc", "is-live=true", "num-buffers=1", "!", "videoconvert", "!",
                "videoscale", "!", *size, "!", "jpegenc", "!", "filesink", f"location={b.path('snap-gst.jpg')}"],
        "gstmin": ["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=1", "!", *size, "!", "jpegenc", "!",
                   "filesink", f"location={b.path('snap-gstmin.jpg')}"],
        "ffmpeg": ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30",
                   "-frames:v", "1", "-y", b.path("snap-ffmpeg.jpg")],
    }


def run(b):
    cmds = commands(b)
    rounds = max(1, b.options.snap_runs // RUNS_PER_ROUND)
    per_round = max(2, b.options.snap_runs // rounds)
    b.log(f"snap: {rounds} rounds of {per_round} runs per tool (hyperfine)")
    times = {t: [] for t in TOOLS}
    cpu = {t: [] for t in TOOLS}
    kept_steal, timed = [], 0
    first, last = machine.cpu_ticks(), None
    while len(kept_steal) < rounds:
        if timed >= 4 * rounds:
            raise BenchError(f"snap: the host took >= {STEAL_LIMIT:g} % of the CPU in {timed} rounds; try again later")
        order = TOOLS[timed % len(TOOLS):] + TOOLS[:timed % len(TOOLS)]
        before = machine.cpu_ticks()
        got = hyperfine({t: cmds[t] for t in order}, runs=per_round, warmup=b.options.snap_warmup if timed == 0 else 1,
                        export=b.path(f"snap-{timed}.json"), log=b.path("snap.log"))
        last = machine.cpu_ticks()
        timed += 1
        share = machine.steal_share(before, last)
        if share >= STEAL_LIMIT:
            b.log(f"  round {timed}: host steal {share:.1f} %, timing it again")
            continue
        kept_steal.append(share)
        for t, r in got.items():
            times[t] += r["times"]
            cpu[t].append(r["user"] + r["system"])
    out = {"rounds": len(kept_steal), "rounds_timed": timed, "runs": len(times["gpick"]),
           "steal_kept": statistics.mean(kept_steal), "steal_all": machine.steal_share(first, last), "tools": {}}
    for t in TOOLS:
        ms = [s * 1000 for s in times[t]]
        image = b.path(f"snap-{t}.jpg")
        out["tools"][t] = {
            "command": b.show(cmds[t]),
            "median": statistics.median(ms), "min": min(ms), "max": max(ms),
            "mean": statistics.mean(ms), "stdev": statistics.stdev(ms) if len(ms) > 1 else 0.0,
            "cpu_mean": statistics.mean(cpu[t]) * 1000,
            "output": f"{probe(image, 'stream=width,height')} {os.path.getsize(image)} bytes",
        }
    return out
