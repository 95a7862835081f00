"""6b. The terminal preview of 1080p30 in a 200×60 tmux pane: its CPU over the same session with
no preview. A 10 s run's CPU varies by more than the preview costs on a VM with steal time, so the
two alternate, twice, and each side keeps its least disturbed (lowest-CPU) run."""
import os
import shlex
import shutil
import subprocess

from .. import measure
from ..measure import BenchError

SECONDS = 10


def in_pane(b, argv, times, log):
    """Runs argv in a detached tmux pane (a real terminal) and waits for it through tmux's own
    wait-for channel; its cost comes from /usr/bin/time inside the pane."""
    sock = f"gpick-bench-{os.getpid()}"
    inner = (f"/usr/bin/time -a -f '%e %U %S' -o {shlex.quote(times)} {shlex.join(argv)} 2>{shlex.quote(log)}; "
             f"tmux -L {sock} wait-for -S done")
    measure.run(["tmux", "-L", sock, "new-session", "-d", "-s", "bench", "-x", "200", "-y", "60", inner],
                timeout=30, log=b.path("tmux.log"))
    try:
        measure.run(["tmux", "-L", sock, "wait-for", "done"], timeout=SECONDS * 4 + 30, log=b.path("tmux.log"))
    finally:
        # The server ends with the pane's command; after a timeout it is ended here.
        subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True)


def last_run(path, log):
    """The pane's last run from /usr/bin/time's line (after a failure it writes the exit status first)."""
    with open(path) as f:
        lines = f.read().splitlines()
    if len(lines) >= 2 and "exited with non-zero status" in lines[-2]:
        raise BenchError(f"terminal: the preview failed ({lines[-2].strip()})\n{measure.tail(log)}")
    wall, user, sys = (float(x) for x in lines[-1].split())
    return {"wall": wall, "cpu": user + sys}


def run(b):
    if not shutil.which("tmux"):
        raise BenchError("terminal: tmux is missing (make setup installs it)")
    b.log("terminal preview of 1080p30 in tmux")
    source = ["--source", "test", "--width", "1920", "--height", "1080", "--fps", "30"]
    preview = [b.gpick, "preview", "--sink", "terminal", "--duration", str(SECONDS), *source]
    plain = [b.gpick, "session", *source]
    script = b.script("base.script", ["set src.pattern smpte", f"wait {SECONDS}s"])
    previews, plains = [], []
    for _ in range(2):
        plains.append(measure.run(plain, timeout=SECONDS * 4, log=b.path("base.err"), stdin=script))
        times = b.path("term.times")
        in_pane(b, preview, times, b.path("term.err"))
        previews.append(last_run(times, b.path("term.err")))
    with open(b.path("term.err")) as f:
        summary = next((line.removeprefix("gpick: ").strip() for line in f if "frames shown" in line), "")
    return {
        "command": f"tmux new-session -x 200 -y 60 \"{b.show(preview)}\"  vs  "
                   f"printf 'set src.pattern smpte\\nwait {SECONDS}s\\n' | {b.show(plain)}",
        "preview_runs": previews,
        "plain_runs": [{"wall": u.wall, "cpu": u.cpu} for u in plains],
        "summary": summary,
    }
