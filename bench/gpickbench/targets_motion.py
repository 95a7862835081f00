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


WATCH_RSS_MIB_PER_HOUR = 1.0   # M3: RSS growth of gpick watch --record, fitted slope after the warm-up


def watchclips_checks(r):
    if not r:
        return []
    clips = r["clips"]
    whole = [c for c in clips if c["breaks"] == 0 and c["unreadable"] == 0]
    covered = [c for c in clips if c["before"] is not None and c["before"] >= r["pre"] and c["after"] >= r["post"]]
    return [
        Check(f"gpick watch --record at 1080p30 for {r['seconds'] / 60:.0f} min: RSS growth",
              f"{r['rss_mib_per_hour']:+.2f} MiB/hour ({r['rss_first_mib']:.0f} → {r['rss_last_mib']:.0f} MiB, peak {r['rss_peak_mib']:.0f})",
              f"< {WATCH_RSS_MIB_PER_HOUR:g} MiB/hour", r["rss_mib_per_hour"] < WATCH_RSS_MIB_PER_HOUR, "M3"),
        Check("Same run: clips, each every frame from before its motion to after it",
              f"{len(clips)} clips of {r['motions']} motions, {len(whole)} with no frame missing, {len(covered)} covering "
              f"--pre {r['pre']} s and --post {r['post']} s",
              "one clip a motion, none missing a frame", len(clips) == r["motions"] and len(whole) == len(clips) == len(covered), "M3"),
    ]
