"""The picker's section of bench/RESULTS.md (K1-K5). Pure: results in, markdown out."""


def verdict(ok):
    return "**PASS**" if ok else "**FAIL**"


def picker(r, c):
    k = {ref: [x for x in c.values() if x.ref == ref] for ref in ("K1", "K2", "K3", "K4", "K5")}
    ms = lambda xs: ", ".join(f"{x:.0f}" for x in xs)  # noqa: E731
    mem = r["memory"]
    lines = ["## 10. The picker: page, camera cell, terminal, memory (K1–K5)", "",
             f"On L1's library ({r['assets']:,} assets, indexed first; the picker lists the newest 1000). The page runs in "
             "headless Chromium (1280×1000, `--columns 8`, the browser's cache off) and is timed by the page's own clock "
             "(`performance.now()`, 0 at navigation start) in a requestAnimationFrame loop injected before the page's "
             "script: a thumbnail counts once decoded in the grid. Each page load is a fresh `gpick pick` process.", "",
             "```", r["command"], "```", "",
             "| measure | runs (ms) | median | target | |", "|---|---|---|---|---|"]
    rows = [("K1 first 24 thumbnails, warm cache", r["grid_warm_ms"], k["K1"][0]),
            ("K1 same, thumbnail cache emptied first", r["grid_cold_ms"], k["K1"][1]),
            ("K2 camera cell's first frame (test source)", r["camera_first_ms"], k["K2"][0]),
            ("K3 photo taken → shown first in the grid", r["snap_ms"], k["K3"][0]),
            ("K4 terminal, start → whole grid (tmux 200×60)", r["terminal_ms"], k["K4"][0])]
    for name, runs, check in rows:
        median = sorted(runs)[len(runs) // 2]
        lines.append(f"| {name} | {ms(runs)} | {median:.0f} | {check.target} | {verdict(check.ok)} |")
    lines.append("")
    started = r.get("grid_warm_started_ms")
    lines.append("- Each page is opened once the freshly started browser is idle (its processes under 8 % of a core over "
                 "250 ms), as in a browser that was already running: Chromium 156 spends about its first second "
                 "preloading its own UI pages, on the same 2 cores."
                 + (f" **{r['grid_unsettled']} of K1's loads** were opened after 10 s with the browser still busy."
                    if r.get("grid_unsettled") else "")
                 + (f" Opened at once in a browser that has only just started, K1 warm took {ms(started)} ms "
                    f"(median {sorted(started)[len(started) // 2]:.0f}; for reference, no target)." if started else ""))
    lines += [f"- K4 starts the clock in the pane just before gpick is executed and stops at the picker's `shown` event "
              f"(every cell in view drawn, pictures included: {r['terminal_cells']} cells, drawn as "
              f"{r['terminal_graphics']}); the first of its runs made the thumbnails and is not counted.",
              f"- K5: the page scrolled a screen at a time until {mem['painted']} thumbnails had painted "
              f"({mem['seconds']:.0f} s, thumbnails made on first sight); the picker's peak RSS (VmHWM) then: "
              f"**{mem['peak_rss_mib']:.0f} MiB** — target {k['K5'][0].target}: {verdict(k['K5'][0].ok)}", ""]
    return lines


def rest(r, c):
    """K6-K8: the camera cell resting out of view, and waking."""
    checks = [x for x in c.values() if x.ref in ("K6", "K7", "K8")]
    lines = ["## 10b. The resting camera cell (K6–K8)", "",
             f"`gpick pick` with its camera live in headless Chromium (1280×1000). bench/browser/picker_probe.py reads the "
             f"picker's CPU time (utime + stime of every thread, /proc) over {r['seconds']} s with the cell live, scrolls "
             f"the cell out of view, waits for the page to hear that the camera rests, reads {r['seconds']} s more, then "
             "scrolls back. On the page's clock from that scroll: the first animation frame showing the cell's picture "
             "(the blurred last frame), the camera's `live` state, and the first frame whose picture differs from the "
             "resting one after it (the first live frame painted). "
             f"{r['runs']} page loads per source, each a fresh picker; the PipeWire camera is PipeWire's videotestsrc node "
             "in a private PipeWire, whose state pw-dump reports meanwhile.", "",
             "```", r["command"], "```", "",
             "| source | CPU live | CPU resting | rested after | live state after | first live frame | node states |",
             "|---|---|---|---|---|---|---|"]
    for name, key in (("test source", "test"), ("PipeWire", "pipewire")):
        for x in r[key]:
            states = " → ".join(str(s) for s in x.get("node_states", [])) or "–"
            lines.append(f"| {name} | {x['live_cpu_percent']:.1f} % | {x['rest_cpu_percent']:.1f} % | {x['rested_ms']:.0f} ms "
                         f"| {x['live_state_ms']:.0f} ms | {x['first_frame_ms']:.0f} ms | {states} |")
    lines.append("")
    for x in checks:
        lines.append(f"- {x.ref} {x.name}: **{x.result}** — target {x.target}: {verdict(x.ok)}")
    return lines + [""]
