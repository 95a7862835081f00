"""The network streams' section of bench/RESULTS.md (N1-N4). Pure: results in, markdown out."""


def verdict(ok):
    return "**PASS**" if ok else "**FAIL**"


def by_ref(checks, ref):
    return [c for c in checks.values() if c.ref == ref]


def glass(r, c):
    g = r.get("glass")
    if not g:
        return ["- N1 (glass-to-glass) was not measured in this run.", ""]
    (n1,), (n1b,) = by_ref(c, "N1"), by_ref(c, "N1b")
    rtsp, srt = g["rtsp"], g["srt"]
    return ["N1: glass-to-glass on loopback. gpick logs when it draws each frame's stamp (`GST_DEBUG=gpick:6`, "
            "CLOCK_MONOTONIC); a GStreamer viewer (`bench/gpickbench/glass.py`: rtspsrc over TCP with no jitter wait, "
            "or srtsrc listening; one decoder thread) notes when it decodes each stamp. Capture → encode → network → "
            "decode, without a display's own delay.", "",
            "```", rtsp["command"], rtsp["viewer"], srt["command"], srt["viewer"], "```", "",
            "| path | frames decoded | stamps | median ms | p95 ms | min ms | max ms |", "|---|---|---|---|---|---|---|",
            f"| RTSP, {rtsp['seconds']} s | {rtsp['frames']} | {rtsp['first']}..{rtsp['last']}, breaks {rtsp['breaks']}, "
            f"unreadable {rtsp['unreadable']} | {rtsp['median_ms']:.1f} | {rtsp['p95_ms']:.1f} | {rtsp['min_ms']:.1f} | {rtsp['max_ms']:.1f} |",
            f"| SRT, latency {srt['latency_ms']} ms, {srt['seconds']} s | {srt['frames']} | {srt['first']}..{srt['last']}, "
            f"breaks {srt['breaks']}, unreadable {srt['unreadable']} | {srt['median_ms']:.1f} | {srt['p95_ms']:.1f} | "
            f"{srt['min_ms']:.1f} | {srt['max_ms']:.1f} |", "",
            f"- N1, RTSP: **{n1.result}** (target {n1.target}): {verdict(n1.ok)}",
            f"- N1b, SRT: **{n1b.result}** (target {n1b.target}): {verdict(n1b.ok)}", ""]


def encoder(r):
    """The encoder alone, beside ffmpeg: why the first N3 (0.8x ffmpeg) could not be met."""
    alone = r.get("x264enc")
    if not alone:
        return []
    ratio = alone["cpu_per_video_second"] / r["ffmpeg"]["cpu_per_video_second"]
    return [f"- The encoder alone, GStreamer's x264enc at the same settings in `{alone['command']}`: "
            f"{alone['cpu_per_video_second']:.3f} CPU s per video s, **{ratio:.2f}x** ffmpeg's (the same libx264), as fast as it can."]


def own_cost(r, c):
    """N3 as restated: what gpick adds to its encoder, job by job."""
    o = r.get("own_cost")
    if not o:
        return ["- N3 (gpick against the same gst-launch line) was not measured in this run.", ""]
    (n3,), (n3b,) = by_ref(c, "N3"), by_ref(c, "N3b")
    rows = []
    for job, tools in o.items():
        g = tools["gpick"]["cpu_per_video_second"]
        for tool, t in tools.items():
            x = t["cpu_per_video_second"]
            runs = " / ".join(f"{v:.3f}" for v in t["runs"])
            rows.append(f"| {job} | {tool} | {x:.3f} | {runs} | {g / x:.2f}x |")
    commands = [t["command"] for tools in o.values() for t in tools.values()]
    return ["N3: the raw 720p30 file served, recorded and published, in real time, by gpick, by the same work as one "
            "gst-launch-1.0 line (gpick's file source stage and the branch's own text from `gpick pipelines show`, then "
            "the payloader or muxer), and by ffmpeg with identical x264 options (-re). CPU from /proc over the same "
            f"{r['window']} s window once each plays, with its reader attached (gpick serve: one RTSP viewer; publish: "
            "an ffmpeg SRT listener for each tool); three rounds, tools rotated, the median. gpick reads the y4m file "
            "with its own gpicky4mdec (each frame one read into a pooled buffer), which gst-launch-1.0 cannot load (its "
            "decodebin takes y4mdec, which gathers each frame out of 4 KiB reads into a new block); `gpick-y4mdec` is "
            "gpick made to use y4mdec too (GST_PLUGIN_FEATURE_RANK=gpicky4mdec:NONE), for what the reader saves. The "
            "targets compare gpick as it runs.", "",
            "```", *commands, "```", "",
            "| job | tool | CPU s per video s (median) | runs | gpick / tool |", "|---|---|---|---|---|", *rows, "",
            f"- N3, gpick / the same gst-launch line: **{n3.result}** (target {n3.target}): {verdict(n3.ok)}",
            f"- N3b, gpick / ffmpeg: **{n3b.result}** (target {n3b.target}): {verdict(n3b.ok)}", ""]


def stream(r, c):
    (n2,), (n4,) = by_ref(c, "N2"), by_ref(c, "N4")
    one, ten, ref, long = r["one"], r["ten"], r["ffmpeg"], r["long"]
    u, s = long["run"], long["stamps"]
    return [f"## 13. Network streams: `gpick serve` {r['width']}x{r['height']}@{r['fps']} (N1–N4)", "",
            "Viewers are ffmpeg over RTSP/TCP, copying the stream without decoding it (as an NVR records). "
            f"gpick's CPU is read from /proc over {r['window']} s once they play.", "", "```", one["command"], ref["command"], "```", "",
            "| source | viewers | playing | gpick serve CPU (% of one core) |", "|---|---|---|---|",
            f"| test | 1 | {one['playing']} | {one['cpu_percent']:.1f} |", f"| test | 10 | {ten['playing']} | {ten['cpu_percent']:.1f} |",
            f"| raw 720p file | 1 | {r['from_file']['playing']} | {r['from_file']['cpu_percent']:.1f} |", "",
            f"- N2, ten viewers over one: **{n2.result}** (target {n2.target}): {verdict(n2.ok)}",
            f"- The same raw file (scrolling SMPTE bars): ffmpeg/libx264 ({r['x264']}) {ref['cpu_per_video_second']:.3f} CPU s per "
            f"video s; gpick serving it to one viewer {r['from_file']['cpu_percent'] / 100:.3f} (read, convert, encode, serve, in real time)",
            *encoder(r), "",
            *own_cost(r, c),
            *glass(r, c),
            f"N4: {long['expected_frames'] // 30} s at 1080p30, a script serving the session and recording it, one viewer watching:", "",
            "```", long["command"], *long["script"], "```", "",
            f"- Wall {u['wall']:.1f} s, CPU {u['user'] + u['sys']:.1f} s, max RSS **{u['maxrss_kib'] / 1024:.1f} MiB**",
            f"- Recording (started after the server, so its first stamp is not 0): frames {s['frames']}, stamps {s['stamps']} "
            f"(indices {s['first']}..{s['last']}, breaks {s['breaks']}, unreadable {s['unreadable']})",
            f"- N4: **{n4.result}** (target {n4.target}): {verdict(n4.ok)}", ""]
