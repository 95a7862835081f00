"""RESULTS.md's soak section (S1)."""
from .report_realfiles import verdict
from .report_stream import by_ref


def soak(r, c):
    checks = by_ref(c, "S1")
    samples = r["samples"]
    every = max(1, len(samples) // 12)
    table = [f"| {s['t'] / 60:.1f} | {s['rss_kib'] / 1024:.1f} | {s['fds']} | {s['cpu_s']:.0f} |" for s in samples[::every]]
    cycle_means = ", ".join(f"{c['rss_mib']:.2f}" for c in r.get("cycles") or []) + (" MiB" if r.get("cycles") else "")
    parts = r["parts"]
    reconnects = ", ".join("never" if x is None else f"{x:.2f}" for x in r["reconnects"])
    spans = [f"{p['file']} {p['first']}..{p['last']}" for p in parts]
    shown = ", ".join(spans[:2]) + (f", … {spans[-1]}" if len(spans) > 2 else "")
    return ["## 14. Soak: a door camera's session (S1)", "",
            f"One `gpick script` session for {r['seconds'] / 60:.0f} min at 1280x720@30 on the test source: serving RTSP "
            f"to three ffmpeg viewers (`-c copy`), publishing over SRT to `srt-live-transmit` listening on 127.0.0.1, "
            f"killed and started again every {r['restart_every']} s, and a loop recording in {r['part']} s parts kept "
            f"{r['keep']}. gpick's RSS and open descriptors read from /proc every {r.get('sample_every', 10)} s; lines "
            f"fitted in the steady state, from the first part the loop recording deleted ({r['steady_from'] / 60:.1f} "
            "min; before it, the recording is still filling its window and the allocator its arenas). RSS's line goes "
            f"through the mean of each {r.get('cycle', 120)} s from there (two part boundaries and one listener restart, "
            "each lifting RSS for a few seconds while an encoder starts: a line through single readings moves with "
            "where they fall)" + (f": {cycle_means}" if cycle_means else "") + ". Through the single readings from "
            f"there RSS grew {r.get('rss_mib_per_hour_samples', 0):+.2f} MiB/hour; from minute 2, "
            f"{r['rss_mib_per_hour_from_warmup']:+.2f}.", "",
            "```", *r["script"], "```", "", "```", r["command"], "```", "",
            "| minute | RSS MiB | open fds | CPU s so far |", "|---|---|---|---|", *table, "",
            (f"Listener restarts at {', '.join(f'{x:.0f}' for x in r['restarts'])} s; publishing back after {reconnects} s"
             if r["restarts"] else "No listener restart (the run was shorter than one interval)")
            + f"; `publish-lost` events: {r['lost']}. Parts written: {r['written']}, deleted by `keep "
            f"{r['keep']}`: {r['deleted']}, kept and read back: {len(parts)} ({shown}).", "",
            *[f"- {x.name}: **{x.result}** — target {x.target}: {verdict(x.ok)}" for x in checks], ""]
