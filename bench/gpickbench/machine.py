"""What the machine is and how busy it is. On a VM the host can take a large share of the CPUs
(steal time) for minutes at a time: timings then measure the host, so the bench waits for a quiet
spell before it starts and re-times rounds the host disturbed."""
import os
import subprocess
import time

from .measure import output


def cpu_ticks():
    """(all CPU time, steal time) in ticks since boot, from the first line of /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v[:8]), v[7]


def steal_share(before, after):
    """Percent of the CPU time between two cpu_ticks() readings that the host took."""
    total, steal = after[0] - before[0], after[1] - before[1]
    return 100.0 * steal / total if total > 0 else 0.0


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def settle(log, quiet_wait, load_below=0.5, steal_below=8.0):
    """Waits (at most 2 min) for the load of whatever ran before (a build) to decay, then (at most
    `quiet_wait` s) for a 5 s window with under `steal_below` % steal. Returns that window's steal %."""
    deadline = time.monotonic() + 120
    while float(load().split()[0]) >= load_below and time.monotonic() < deadline:
        time.sleep(2)
    deadline = time.monotonic() + quiet_wait
    while True:
        before = cpu_ticks()
        time.sleep(5)
        share = steal_share(before, cpu_ticks())
        if share < steal_below or time.monotonic() >= deadline:
            return share
        log(f"host steal {share:.1f} % (waiting for < {steal_below:g} %)")
        time.sleep(10)


def facts(gpick, original, root):
    """The versions and provenance the report's header states."""
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    x264 = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}\\n", "libx264-1*"],
                          capture_output=True, text=True).stdout.strip().splitlines()
    git = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", root, "diff", "--quiet", "HEAD", "--", "Sources", "pipelines"]).returncode != 0
    built = os.path.getmtime(original)
    stale = sum(1 for top in ("Sources", "pipelines") for d, _, files in os.walk(os.path.join(root, top))
                for name in files if os.path.getmtime(os.path.join(d, name)) > built)
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "gstreamer": next(line.split()[1] for line in output(["gst-launch-1.0", "--version"]).splitlines()
                          if line.startswith("GStreamer ")),
        "ffmpeg": output(["ffmpeg", "-version"]).split()[2],
        "x264": x264[0] if x264 else "unknown",
        "gpick": output([gpick, "--version"]).splitlines()[0],
        "gpick_built": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(built)),
        "stale_sources": stale,
        "git": (git or "none") + (" (Sources/pipelines modified since that commit)" if dirty and git else ""),
    }
