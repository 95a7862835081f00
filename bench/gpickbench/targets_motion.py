"""Motion detection's targets (the motion issue): its cost at 1080p30, and how soon a start is told."""
from .targets import Check

MOTION_PERCENT = 2.0     # M1: motion detection at 1080p30, CPU over a plain session, % of one core
MOTION_LATENCY_MS = 100  # M2: the first moving frame entering the outputs → the motion-started event


def motion_percent(r):
    """The detection's own CPU, % of one core: least-disturbed watch run minus least-disturbed plain run."""
    w = min(r["watch_runs"], key=lambda x: x["user"] + x["sys"])
    p = min(r["plain_runs"], key=lambda x: x["user"] + x["sys"])
    return ((w["user"] + w["sys"]) - (p["user"] + p["sys"])) / w["wall"] * 100


def motion_checks(r):
    if not r:
        return []
    pct = motion_percent(r)
    worst = max(r["latency_ms"], default=None)
    return [
        Check("Motion detection at 1080p30, CPU over a plain session", f"{pct:.2f} % of a core",
              f"<= {MOTION_PERCENT:g} %", pct <= MOTION_PERCENT, "M1"),
        Check("First moving frame → motion-started event (worst)",
              "no start" if worst is None else f"{worst:.1f} ms over {len(r['latency_ms'])} starts",
              f"<= {MOTION_LATENCY_MS} ms", worst is not None and worst <= MOTION_LATENCY_MS, "M2"),
    ]
