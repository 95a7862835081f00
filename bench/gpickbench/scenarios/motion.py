"""15. Motion detection (M1, M2): `gpick watch` at 1080p30 on the test source's moving ball (with
--min-area 0.05 %: the ball is about 0.1 % of the frame), its
CPU over a plain session on the same source (the two alternate, and each side keeps its least
disturbed, lowest-CPU run, as the terminal preview's section does), and how long after the first
moving frame entered the session's outputs each start was told (the event's `latency`, which
gpick measures on the monotonic clock)."""
import json

from .. import measure
from ..measure import BenchError

SECONDS = 10
ROUNDS = 3


def run(b):
    b.log("motion detection at 1080p30")
    source = ["--source", "test:ball", "--width", "1920", "--height", "1080", "--fps", "30"]
    # The ball is 0.1 % of a 1080p frame: --min-area below it (the default, 0.6 %, is a person's size).
    watch = [b.gpick, "watch", "--duration", str(SECONDS), "--min-area", "0.05", "--json", *source]
    plain = [b.gpick, "session", *source]
    # `set` starts the session's pipeline (a script that only waits never does).
    script = b.script("motion-base.script", ["set src.pattern ball", f"wait {SECONDS}s"])
    watches, plains, latencies = [], [], []
    for i in range(ROUNDS):
        plains.append(measure.run(plain, timeout=SECONDS * 4, log=b.path("motion-base.err"), stdin=script))
        out = b.path(f"motion-{i}.jsonl")
        watches.append(measure.run(watch, timeout=SECONDS * 4, log=b.path("motion.err"), stdout=out))
        with open(out) as f:
            starts = [e for e in map(json.loads, f) if e.get("event") == "motion-started"]
        if not starts or "latency" not in starts[0]:
            raise BenchError(f"motion: no motion-started event with its latency in round {i + 1}\n{measure.tail(b.path('motion.err'))}")
        latencies += [e["latency"] * 1000 for e in starts]
    return {
        "command": f"{b.show(watch)}  vs  printf 'set src.pattern ball\\nwait {SECONDS}s\\n' | {b.show(plain)}",
        "seconds": SECONDS,
        "watch_runs": [u.as_dict() for u in watches],
        "plain_runs": [u.as_dict() for u in plains],
        "latency_ms": latencies,
    }
