"""bench/RESULTS.md from a run's results: the header, the summary of checks, then one section per
benchmark with its commands and every measurement. Pure: results in, markdown out."""
import statistics

from . import targets as T


def verdict(ok):
    return "**PASS**" if ok else "**FAIL**"


def by_name(checks):
    return {c.name: c for c in checks}


def header(m):
    busy = (float(m["load_start"].split()[0]) > 0.5 * m["nproc"] or float(m["load_end"].split()[0]) > 1.5 * m["nproc"])
    stale = f" — **{m['stale_sources']} source file(s) are newer than this binary**" if m["stale_sources"] else ""
    lines = ["# gpick benchmarks", "",
             f"- Date: {m['date']}  (run took {m['seconds']:.0f} s)",
             f"- Machine: `nproc` = {m['nproc']}, {m['cpu']}; load average {m['load_start']} at start, {m['load_end']} at end; "
             f"host steal {m['steal_start']:.1f} % of CPU time when the timings began",
             f"- GStreamer {m['gstreamer']}, ffmpeg {m['ffmpeg']}, {m['x264']} (both tools use this libx264)",
             f"- gpick {m['gpick']} ({m['gpick_path']}, built {m['gpick_built']}; a copy of it and of pipelines/ was "
             f"benchmarked){stale}; tree at git {m['git']}",
             f"- Produced by `make bench` (`bench/run.sh`: {m['sections']}; one run, all numbers below come from it)."]
    if busy:
        lines.append("- **Note: the machine was busy with other work during this run** (see load averages), so wall "
                     "times are inflated and CPU numbers are noisier than on an idle machine.")
    return lines + [""]


def summary(checks):
    return (["## Summary", "", "| benchmark | result | target | |", "|---|---|---|---|"]
            + [f"| {c.name} | {c.result} | {c.target} | {verdict(c.ok)} |" for c in checks] + [""])


def snap(r, c):
    tools = r["tools"]
    g, s, m, f = (tools[t]["median"] for t in ("gpick", "gst", "gstmin", "ffmpeg"))
    check = c["Snap 1080p JPEG, gpick / gst-launch (same work) wall time"]
    lines = ["## 1. Snap: one 1080p JPEG, whole-process wall time", "",
             f"{r['runs']} timed runs per tool (hyperfine, no shell, after warm-up), in {r['rounds']} rounds with the "
             f"tools' order rotated each round. A round during which the VM's host took >= 10 % of the CPU time "
             f"(steal) was timed again: {r['rounds']} rounds kept of {r['rounds_timed']} (host steal "
             f"{r['steal_kept']:.1f} % in the kept rounds, {r['steal_all']:.1f} % over all of them).", "",
             "| tool | median ms | min | max | mean ± sd | CPU ms (mean) | output |", "|---|---|---|---|---|---|---|"]
    for t, name in (("gpick", "gpick snap"), ("gst", "gst-launch-1.0, same work"), ("gstmin", "gst-launch-1.0, minimal"),
                    ("ffmpeg", "ffmpeg")):
        x = tools[t]
        lines.append(f"| {name} | {x['median']:.1f} | {x['min']:.1f} | {x['max']:.1f} | {x['mean']:.1f} ± {x['stdev']:.1f} "
                     f"| {x['cpu_mean']:.1f} | {x['output']} |")
    return lines + [
        "", "Commands (gpick; the same work as one gst-launch line; the minimal gst-launch line; ffmpeg):", "```",
        *(tools[t]["command"] for t in ("gpick", "gst", "gstmin", "ffmpeg")), "```", "",
        "The same-work line is what gpick's snap does: its test source is a live videotestsrc (it stands in for a "
        "camera: the frame comes when the clock says) and its input stage converts and scales to the asked format. "
        "The minimal line skips both; until 2026-11-22 it was the reference.", "",
        f"- Ratio gpick / gst-launch, same work (medians): **{check.result}** — target {check.target}: {verdict(check.ok)}",
        f"- gpick / minimal gst-launch line: {g / m:.2f}x; gpick / ffmpeg: {g / f:.2f}x",
        f"- CPU time gpick / same-work line (means): {tools['gpick']['cpu_mean'] / tools['gst']['cpu_mean']:.2f}x. "
        "(gpick uses both cores at start-up, so a busy host stretches its wall time more than the one-thread line's)", ""]


def record(r, c):
    secs = r["seconds"]
    fcpu, gcpu = T.record_cpu(r, "ffmpeg"), T.record_cpu(r, "gpick")
    g, f = r["tools"]["gpick"], r["tools"]["ffmpeg"]
    cpu, q = c["Record 1080p30, CPU gpick / ffmpeg"], c["Record 1080p30, SSIM gpick − ffmpeg"]
    lines = ["## 2. Recording 1080p30: CPU per video second and quality", "",
             f"Source: {secs} s = {r['frames']} identical raw 1920x1080 I420 frames (y4m), made once:", "```",
             r["source_command"], "```",
             "Moving mixed content: scrolling SMPTE bars (with their noise patch), a pinwheel, the moving ball, an "
             "animated zone plate.", "",
             "Commands (CPU = user+sys of the whole process, from wait4; gpick's file source plays in real time, so "
             "its wall time is about the video length):", "```",
             r["commands"]["gpick"] + "    # defaults: x264enc tune=zerolatency speed-preset=veryfast, quantizer 21 (qual)",
             r["commands"]["ffmpeg"] + "    # defaults: preset medium, crf 23", r["commands"]["ssim"], "```", "",
             "| tool | CPU s per run | mean CPU s | CPU s per video s | wall s | max RSS MiB | frames | video kbit/s | SSIM (All) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, x, mean_cpu in (("gpick record", g, gcpu), ("ffmpeg libx264", f, fcpu)):
        runs = x["runs"]
        cpus = ", ".join(f"{u['user'] + u['sys']:.1f}" for u in runs)
        walls = ", ".join(f"{u['wall']:.1f}" for u in runs)
        lines.append(f"| {name} | {cpus} | {mean_cpu:.2f} | {mean_cpu / secs:.3f} | {walls} | "
                     f"{max(u['maxrss_kib'] for u in runs) / 1024:.0f} | {x['frames']} | {x['kbps']} | {x['ssim']:.6f} |")
    lines += ["", f"- CPU ratio gpick / ffmpeg: **{cpu.result}** — target {cpu.target}: {verdict(cpu.ok)}",
              f"- SSIM: gpick {g['ssim']:.6f}, ffmpeg {f['ssim']:.6f}, difference {g['ssim'] - f['ssim']:+.6f} — "
              f"target gpick >= ffmpeg − {T.SSIM_TOLERANCE}: {verdict(q.ok)}"]
    if any(u["wall"] > secs * 1.2 for u in g["runs"]):
        lines.append(f"- Note: a gpick run took longer than {secs * 1.2:.0f} s wall, i.e. it could not keep up with real time.")
    if g["frames"] != f["frames"]:
        lines.append(f"- Note: frame counts differ ({g['frames']} vs {f['frames']}); SSIM compares the overlapping frames.")
    lines.append("")
    if r["variants"]:
        lines += ["### x264 variants tried (gpick `record --set ...`, one run each, same source)", "",
                  f"Compared against the ffmpeg baseline above (CPU {fcpu:.2f} s, SSIM {f['ssim']:.6f}). Both targets: "
                  f"CPU <= {T.RECORD_CPU_RATIO}x ffmpeg and SSIM >= ffmpeg − {T.SSIM_TOLERANCE}.", "",
                  "| gpick settings | CPU s | CPU s per video s | CPU / ffmpeg | SSIM | SSIM − ffmpeg | video kbit/s | wall s | frames | both targets |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        rows = [("defaults (veryfast, q 21)", {"run": {"user": gcpu, "sys": 0.0, "wall": statistics.mean(u["wall"] for u in g["runs"])},
                                              "ssim": g["ssim"], "kbps": g["kbps"], "frames": g["frames"]})]
        rows += [(" ".join(f"`--set {kv}`" for kv in v["settings"]), v) for v in r["variants"]]
        for label, v in rows:
            if "error" in v:
                lines.append(f"| {label} | error: {v['error']} | | | | | | | | no |")
                continue
            used = v["run"]["user"] + v["run"]["sys"]
            both = used / fcpu <= T.RECORD_CPU_RATIO and v["ssim"] >= f["ssim"] - T.SSIM_TOLERANCE
            lines.append(f"| {label} | {used:.2f} | {used / secs:.3f} | {used / fcpu:.2f}x | {v['ssim']:.6f} | "
                         f"{v['ssim'] - f['ssim']:+.6f} | {v['kbps']} | {v['run']['wall']:.1f} | {v['frames']} | "
                         f"{'yes' if both else 'no'} |")
        lines.append("")
    return lines


def memory(r, c):
    u, s, want = r["run"], r["stamps"], r["expected_frames"]
    rss = c[f"Record {want // 30} s 1080p30 + audio, max RSS"]
    cpu = u["user"] + u["sys"]
    lines = [f"## 3. Peak memory and dropped frames: {want // 30} s 1080p30 recording with audio", "", "```",
             r["command"], r["inspect_command"], "```", "",
             f"- Wall {u['wall']:.1f} s, CPU {cpu:.1f} s ({cpu / (want / 30):.2f} CPU s per video s)",
             f"- Max RSS: **{u['maxrss_kib'] / 1024:.1f} MiB** ({u['maxrss_kib']} KiB) — target {rss.target}: {verdict(rss.ok)}",
             f"- inspect: frames {s['frames']}, duration {s['duration']} s, stamps {s['stamps']} (source ids "
             f"{','.join(s['source_ids']) or '-'}, unreadable {s['unreadable']}, indices {s['first']}..{s['last']}, "
             f"breaks in sequence {s['breaks']}, missing {s['missing']}"
             + (f", first missing {s['first_missing']}" if s["missing"] else "") + ")",
             f"- {want} frames with consecutive stamp indices 0..{want - 1}: {verdict(s['ok'])}"]
    if isinstance(s["duration"], (int, float)) and abs(s["duration"] - want / 30) > 2 / 30:
        lines.append(f"- Note: the file's duration is {s['duration']:.3f} s for {s['frames']} frames (expected "
                     f"{want / 30:.3f} s): timestamps drifted from the nominal 30 fps (see load average above).")
    return lines + [""]


def session(r, c):
    check = c["Session snap 1080p30, command → file (median)"]
    return ["## 4. Session snap latency: 1080p30, one running session", "", "```", r["command"], "```", "",
            f"- {r['shots']} snaps (the first, which also starts the session, is left out), 0.2 s apart",
            f"- Command arrival → file written: median **{r['latency_median']:.1f} ms**, max {r['latency_max']:.1f} ms",
            f"- Of which waiting for the frame (command → exposure complete): median {r['wait_median']:.2f} ms, max "
            f"{r['wait_max']:.2f} ms — the retained frame answers at once (zero shutter lag)",
            f"- Encode + atomic write (exposure complete → file): median {r['encode_median']:.1f} ms",
            f"- Shots over one frame interval ({T.FRAME_MS:.1f} ms) + their own encode time: {r['late']} of {r['shots']} — "
            f"{verdict(check.ok)}", ""]


def live(r, c):
    extra = c["Live mode 1080p30, extra RSS over a plain session"]
    shutter = c[f"Live photo, shutter → all outputs (max of {T.LIVE_SHOTS})"]
    kept = c["Live photos during a recording, frames kept"]
    p, dropped = r["preview"], c["Live photos during an HTTP preview, frames dropped"]
    times = r["shutter_s"]
    return ["## 5. Live photos: 1080p30 session in live mode", "", "```", *r["commands"], "```", "",
            f"- Max RSS, median of 3: plain session {r['rss_photo_kib'] / 1024:.1f} MiB, armed live mode "
            f"{r['rss_live_kib'] / 1024:.1f} MiB: **{T.live_extra_mib(r):+.1f} MiB** — target {extra.target}: {verdict(extra.ok)}",
            f"- Shutter → NAME.jpg + NAME.mov + NAME.MP.jpg written: median "
            f"{statistics.median(times) if times else float('nan'):.2f} s, max {shutter.result} over {len(times)} shots "
            f"(--after 1.5) — target {shutter.target}: {verdict(shutter.ok)}",
            f"- Second run, a 1080p recording running through three shots: {r['recording_frames']} frames, stamps "
            f"{'consecutive' if r['recording_consecutive'] else 'BROKEN'} — {verdict(kept.ok)}",
            f"- Third run, an HTTP preview (`preview start http`, one viewer reading the stream) through three shots: "
            f"{p['offered']} frames reached the preview, {p['shown']} were encoded and served, {p['dropped']} dropped by "
            f"its queue while the encoder was busy — {verdict(dropped.ok)}", ""]


def flips(r, c):
    ph, blend = r["placeholder"], r["blend"]
    cost = c["Blurred placeholder from one 1080p frame (median)"]
    flip = c["Flip request → first placeholder frame, on the output timeline (max)"]
    black = c["Black frames in a recording through flips"]
    tl, wall = r["timeline_ms"] or [float("nan")], r["wall_ms"] or [float("nan")]
    return ["## 6. Flips and previews", "", "### Placeholder cost", "", "```",
            f"{r['compiler']} -O2 -I Sources/CImaging/include -I Sources/CImaging bench/imaging/bench.c "
            f"{' '.join(r['sources'])} && ./a.out",
            "```", "",
            f"- Downscale ÷8 → blur small → bilinear upscale of one 1920×1080 I420 frame: median **{ph['median']:.2f} ms**, "
            f"p95 {ph['p95']:.2f} ms — target {cost.target}: {verdict(cost.ok)} (the stock `gaussianblur` takes ~260 ms)",
            f"- Crossfade (one 1080p blend): median {blend['median']:.2f} ms, p95 {blend['p95']:.2f} ms", "",
            "### Flips in a 1080p30 session with a recording running", "", "```", r["command"], "```", "",
            f"- {r['count']} flips, {r['placeholders']} placeholder episodes",
            f"- On the output timeline (running time when the flip was asked → timestamp of the first placeholder "
            f"frame): median **{statistics.median(tl):.1f} ms**, max {max(tl):.1f} ms, i.e. at most {T.flip_slots(r)} frame "
            f"slot(s) after the request — target {flip.target}: {verdict(flip.ok)} (the slot right after the last camera "
            "frame; a camera frame captured in the few ms between the request and the switch still shows first)",
            f"- Wall clock, command line read → first placeholder frame handed to the outputs (includes parsing the "
            f"command and waiting for room when the 1080p encoder is behind): median {statistics.median(wall):.1f} ms, "
            f"max {max(wall):.1f} ms",
            f"- Recording: {r['recording_frames']} frames, {r['recording_seconds']:.3f} s; black frames (ffmpeg "
            f"blackframe, 98 % of pixels below 32): **{r['black_frames']}** — {verdict(black.ok)}", ""]


def terminal(r, c):
    check = c["Terminal preview of 1080p30, CPU over a plain session"]
    p = min(r["preview_runs"], key=lambda x: x["cpu"])
    b = min(r["plain_runs"], key=lambda x: x["cpu"])
    runs = lambda xs: ", ".join(f"{x['cpu']:.2f}" for x in xs)  # noqa: E731
    return ["### Terminal preview of 1080p30 (tmux pane 200×60)", "", "```", r["command"], "```", "",
            f"- Preview process: {p['cpu']:.2f} CPU s in {p['wall']:.1f} s; the same session without a preview: "
            f"{b['cpu']:.2f} CPU s in {b['wall']:.1f} s (the lower of two alternating runs each: preview "
            f"{runs(r['preview_runs'])}, plain {runs(r['plain_runs'])} CPU s)",
            f"- The preview's own cost: **{T.terminal_percent(r):.1f} % of one core** — target {check.target}: {verdict(check.ok)}",
            *([f"- {r['summary']}"] if r["summary"] else []), ""]


SECTIONS = (("snap", snap), ("record", record), ("memory", memory), ("session", session), ("live", live),
            ("flips", flips), ("terminal", terminal))


def render(results):
    """The whole RESULTS.md for one run (only the sections it ran)."""
    checks = T.checks(results)
    c = by_name(checks)
    lines = header(results["meta"]) + summary(checks)
    for name, section in SECTIONS:
        if results.get(name):
            lines += section(results[name], c)
    return "\n".join(lines)
