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
    """Why N3 is where it is: the same encoder in gst-launch, alone, beside ffmpeg."""
    alone = r.get("x264enc")
    if not alone:
        return []
    ratio = alone["cpu_per_video_second"] / r["ffmpeg"]["cpu_per_video_second"]
    return [f"- The encoder alone, GStreamer's x264enc at the same settings in `{alone['command']}`: "
            f"{alone['cpu_per_video_second']:.3f} CPU s per video s, **{ratio:.2f}x** ffmpeg's. Both run the same libx264, so at "
            "the same preset no GStreamer program can use 0.8x ffmpeg's CPU; what gpick adds over the encoder alone "
            f"(real-time reading, the session, RTP) is {r['from_file']['cpu_percent'] / 100 - alone['cpu_per_video_second']:.3f} "
            "CPU s per video s."]


def stream(r, c):
    (n2,), (n3,), (n4,) = by_ref(c, "N2"), by_ref(c, "N3"), by_ref(c, "N4")
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
            f"- N3, gpick / ffmpeg: **{n3.result}** (target {n3.target}): {verdict(n3.ok)}",
            *encoder(r), "",
            *glass(r, c),
            f"N4: {long['expected_frames'] // 30} s at 1080p30, a script serving the session and recording it, one viewer watching:", "",
            "```", long["command"], *long["script"], "```", "",
            f"- Wall {u['wall']:.1f} s, CPU {u['user'] + u['sys']:.1f} s, max RSS **{u['maxrss_kib'] / 1024:.1f} MiB**",
            f"- Recording (started after the server, so its first stamp is not 0): frames {s['frames']}, stamps {s['stamps']} "
            f"(indices {s['first']}..{s['last']}, breaks {s['breaks']}, unreadable {s['unreadable']})",
            f"- N4: **{n4.result}** (target {n4.target}): {verdict(n4.ok)}", ""]
