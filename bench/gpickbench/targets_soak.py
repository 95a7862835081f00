"""S1's targets (the unattended-run issue): a door-camera session at 720p30, 45 minutes long (20 at
least; scenarios/soak.py says why longer)."""
from .targets import Check

SOAK_RSS_MIB_PER_HOUR = 1.0   # S1: RSS growth, the slope through each cycle's mean in the steady state (from the first part deleted)
SOAK_FDS_PER_RUN = 1          # S1: open descriptors: the fitted slope over the run stays under one
SOAK_RECONNECT_S = 3.0        # S1: publish back within this of each listener restart


def viewers_played(r):
    """All three viewers were there, and still playing when the session's wait ended."""
    alive = r.get("viewers_alive") or []
    return len(alive) == 3 and all(alive) and r.get("viewer_lost_at") is None


def soak_checks(r):
    if not r:
        return []
    minutes = r["seconds"] / 60
    hours = r["seconds"] / 3600
    parts = r["parts"]
    frames_ok = bool(parts) and all(p["breaks"] == 0 and p["unreadable"] == 0 and p["joins"] and p["frames"] == r["part"] * 30
                                    for p in parts[:-1]) and parts[-1]["breaks"] == 0 and parts[-1]["joins"]
    reconnects = r["reconnects"]
    worst = max((x for x in reconnects if x is not None), default=None)
    reconnect_ok = bool(reconnects) and None not in reconnects and worst <= SOAK_RECONNECT_S
    fds = r["fds_per_hour"] * hours
    growth, error = r.get("rss_mib_per_hour"), r.get("rss_mib_per_hour_error")
    cycles = r.get("cycles") or []
    rss = ("too short a steady state for two cycles" if growth is None else
           f"{growth:+.2f} MiB/hour" + (f" ± {error:.2f}" if error is not None else "")
           + f" through {len(cycles)} cycles' means ({cycles[0]['rss_mib']:.1f} → {cycles[-1]['rss_mib']:.1f} MiB)")
    if not viewers_played(r):
        lost = r.get("viewer_lost_at")
        rss += f"; a viewer stopped at {lost:.0f} s" if lost is not None else "; the viewers were not all playing"
    return [
        Check(f"Soak {minutes:.0f} min at 720p30 (serve to 3 viewers, publish over SRT, loop recording): RSS growth", rss,
              f"< {SOAK_RSS_MIB_PER_HOUR:g} MiB/hour",
              growth is not None and growth < SOAK_RSS_MIB_PER_HOUR and viewers_played(r), "S1"),
        Check("Same soak: open descriptors", f"{r['fds_per_hour']:+.2f}/hour ({r['fds_first']} → {r['fds_last']})",
              f"flat (fitted growth over the run < {SOAK_FDS_PER_RUN})", abs(fds) < SOAK_FDS_PER_RUN, "S1"),
        Check("Same soak: publishing back after each listener restart (worst)",
              "never back" if worst is None else f"{worst:.2f} s over {len(reconnects)} restarts" +
              ("" if None not in reconnects else f", {reconnects.count(None)} never back"),
              f"<= {SOAK_RECONNECT_S:g} s", reconnect_ok, "S1"),
        Check("Same soak: the kept parts' frames",
              f"{len(parts)} parts, " + ("every frame once, joined" if frames_ok else "frames lost or repeated")
              + ("" if r["index_matches"] else "; parts.json disagrees with the folder"),
              "0 lost at part boundaries or within", frames_ok and r["index_matches"], "S1"),
    ]
