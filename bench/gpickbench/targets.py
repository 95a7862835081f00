"""The targets every run is held to, and the checks that compare a run's results with them. Pure:
results in (the scenarios' data), checks out."""
from dataclasses import dataclass

SNAP_RATIO = 1.15           # gpick snap / the same work as one gst-launch line, wall time (medians)
RECORD_CPU_RATIO = 0.80     # gpick record / ffmpeg libx264, CPU seconds
SSIM_TOLERANCE = 0.005      # gpick's SSIM at least ffmpeg's minus this
RECORD_RSS_MIB = 200        # peak RSS of the long 1080p30 recording with audio
LIVE_EXTRA_MIB = 16         # armed live mode's RSS over a plain session
LIVE_SHUTTER_S = 2.0        # shutter → every output of a live photo (--after 1.5 + 0.5 s)
LIVE_SHOTS = 3
PLACEHOLDER_MS = 3.0        # the blurred placeholder from one 1080p frame (median)
FLIP_SLOTS = 1              # flip request → first placeholder frame, in 30 fps frame slots
TERMINAL_PERCENT = 25.0     # the terminal preview's CPU over a plain session, % of one core
FRAME_MS = 1000 / 30
# The pick half (issue 15); the L numbers are the issue's. L7 is the snap ratio above.
SCAN_RATIO = 0.10           # L1: gpick cold scan / exiftool -fast2 -json -r on the same tree, wall (medians)
RESCAN_RATIO = 2.0          # L2: gpick rescan of the unchanged tree / find -printf '%i %s %T@', wall (medians)
NEWEST_MS = 10.0            # L3: the newest 1000 of 100,000 indexed assets, in-process (median)
PHOTO_THUMB_RATIO = 0.80    # L4: 200 12 MP JPEGs → 256 px, gpick / `vipsthumbnail -s 256` on the files (one process), wall
PHOTO_THUMB_RSS_MIB = 150   # L4: gpick's peak RSS over that batch
PHOTO_THUMB_PER_CORE = 0.90  # L4 restated by issue 45: the same batch against one vipsthumbnail per core, wall
VIDEO_THUMB_RATIO = 1.0     # L5: 50 1080p MP4s → 256 px, gpick / ffmpegthumbnailer (same parallelism), wall
# Real phone and camera files (the real-files issue), when the corpus is there.
REAL_SCAN_RATIO = 0.10      # R1: gpick cold scan / exiftool -fast2 -r on the same files, wall (medians)
REAL_THUMB_RATIO = 0.90     # R2: gpick library thumbs / vipsthumbnail -s 256 one process per core, wall (medians)
REAL_THUMB_CPU_RATIO = 0.80  # R2: the same, CPU time (means)
EXIF_MS = 1.0               # E1: StillExif(...).insert(into:) a 1080p JPEG, in-process (median over 30)
NOT_RUN = "not run: corpus absent"
SIZE_MS = 1.0               # L6: ImageSource size() of a 12 MP JPEG, in-process (median)
FIRST_DEGRADED_MS = 5.0     # L6: a progressive request's first (degraded) result for it (median)
# The picker (issue 16), on L1's 10,000-asset library.
GRID_WARM_MS = 200          # K1: navigation start → the first 24 thumbnails painted, warm thumbnail cache (issue 26)
GRID_COLD_MS = 1500         # K1: the same with the thumbnail cache emptied first
CAMERA_FIRST_MS = 1000      # K2: the camera cell's first live frame after page load
SNAP_SHOWN_MS = 500         # K3: a photo taken in the cell → shown at the head of the grid
TERMINAL_PAINT_MS = 300     # K4: start → the terminal picker's first whole grid in a 200×60 tmux pane
PICKER_RSS_MIB = 150        # K5: the picker's peak RSS, page scrolled through 1000 assets
# The resting camera cell (issue 25): the page scrolled so the cell is out of view, then back.
REST_CPU_PERCENT = 2.0      # K6: the picker's CPU while the cell rests, % of one core (median), either source
WAKE_TEST_MS = 300          # K7: cell back in view → its first live frame painted, the test source (median)
WAKE_PIPEWIRE_MS = 600      # K8: the same with a PipeWire camera
BLURRED_FRAMES = 1          # K7, K8: the blurred last frame shown within this many animation frames of the scroll
# Avatars (the avatar issue): a 500 px initials avatar (gradient, circle).
AVATAR_RENDER_MS = 15.0     # A1: AvatarRenderer.render of it, in-process (median); PNG encoding is not in it
AVATAR_RATIO = 1.2          # A2: `gpick avatar` / rsvg-convert drawing the same SVG to PNG, whole process, wall (means)
AVATAR_EDITOR_MS = 100      # A3: the editor: a field changed → the new preview shown in headless Chromium (median)
# Network streams (the streaming issue): gpick serve at 720p30, viewers over RTSP/TCP.
MODE_CHOICE_MS = 1.0        # C1: ModeChoice.choose on a table of 200 modes or more, in-process (median)
MJPEG_CPU_RATIO = 1.0       # C2: the camera stage decoding 1080p30 MJPEG / ffmpeg -f mjpeg -i FRAMES -f null -, CPU per video second
STREAM_VIEWERS_RATIO = 1.15  # N2: gpick serve's CPU with ten viewers / with one (one shared encode)
STREAM_OWN_COST = 1.10       # N3: serve, record, publish of a raw 720p30 file, CPU per video second / the same gst-launch line
STREAM_FFMPEG_RATIO = 1.15   # N3b: the same / ffmpeg with identical x264 options
STREAM_GLASS_MS = 150        # N1: RTSP at 720p30, stamp drawn → decoded by a viewer on loopback, median
STREAM_SRT_MARGIN_MS = 100   # N1b: SRT, the same, at most the configured latency plus this
STREAM_RSS_MIB = 200         # N4: 60 s at 1080p30 served and recorded at once: peak RSS, and every frame recorded


@dataclass(frozen=True)
class Check:
    name: str
    result: str
    target: str
    ok: bool | None         # None: not run (what it needs is absent), neither met nor missed
    ref: str = ""           # the id of the target (L1…), when it has one


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def mean(xs):
    return sum(xs) / len(xs)


def snap_ratio(r):
    return r["tools"]["gpick"]["median"] / r["tools"]["gst"]["median"]


def record_cpu(r, tool):
    return mean([x["user"] + x["sys"] for x in r["tools"][tool]["runs"]])


def live_extra_mib(r):
    return (r["rss_live_kib"] - r["rss_photo_kib"]) / 1024


def flip_slots(r):
    """The slowest flip in frame slots: 1 means its placeholder is the very next frame (a camera
    frame captured in the few ms between the request and the switch still shows first, so the
    milliseconds can pass one interval by a little)."""
    return round(max(r["timeline_ms"]) / FRAME_MS) if r["timeline_ms"] else None


def terminal_percent(r):
    """The preview's own CPU, % of one core: least-disturbed preview run minus least-disturbed plain run."""
    p = min(r["preview_runs"], key=lambda x: x["cpu"])
    b = min(r["plain_runs"], key=lambda x: x["cpu"])
    return (p["cpu"] - b["cpu"]) / p["wall"] * 100


def tool_ratio(r, tool, reference):
    """Median wall time of `tool` over that of `reference`, in a section's "tools"."""
    return median(r["tools"][tool]["times"]) / median(r["tools"][reference]["times"])


def mean_ratio(r, tool, reference):
    """Mean wall time of `tool` over that of `reference`, in a section's "tools"."""
    return mean(r["tools"][tool]["times"]) / mean(r["tools"][reference]["times"])


def vips_reference(r):
    """The L4 reference: the issue's command, `vipsthumbnail -s 256` on the files (one process).
    One process per core is measured too and shown beside it, as information."""
    return "vips" if "vips" in r["tools"] else "vips_parallel"


def census_result(k):
    text = f"{k['pairs_found']}/{k['pairs']} pairs, {k['motion_found']}/{k['motion_photos']} Motion Photos, {k['invented_count']} invented"
    for what in ("photos", "videos", "live"):
        if k[what] != k[f"{what}_expected"]:
            text += f"; {what} {k[what]}/{k[f'{what}_expected']}"
    if k["files_found"] != k["files_expected"]:
        text += f"; files {k['files_found']}/{k['files_expected']}"
    if k["unreadable"]:
        text += f"; {k['unreadable']} unreadable"
    if k["wrong_movie"]:
        text += f"; {len(k['wrong_movie'])} with another movie"
    return text


def checks(results):
    """Every target against this run, in the report's order; sections not run are left out."""
    out = []
    if (r := results.get("snap")):
        ratio = snap_ratio(r)
        out.append(Check("Snap 1080p JPEG, gpick / gst-launch (same work) wall time", f"{ratio:.2f}x",
                         f"<= {SNAP_RATIO}x", ratio <= SNAP_RATIO, "L7"))
    if (r := results.get("record")):
        ratio = record_cpu(r, "gpick") / record_cpu(r, "ffmpeg")
        diff = r["tools"]["gpick"]["ssim"] - r["tools"]["ffmpeg"]["ssim"]
        out.append(Check("Record 1080p30, CPU gpick / ffmpeg", f"{ratio:.2f}x", f"<= {RECORD_CPU_RATIO}x",
                         ratio <= RECORD_CPU_RATIO))
        out.append(Check("Record 1080p30, SSIM gpick − ffmpeg", f"{diff:+.4f}", f">= −{SSIM_TOLERANCE}",
                         diff >= -SSIM_TOLERANCE))
    if (r := results.get("memory")):
        mib = r["run"]["maxrss_kib"] / 1024
        want, s = r["expected_frames"], r["stamps"]
        out.append(Check(f"Record {want // 30} s 1080p30 + audio, max RSS", f"{mib:.0f} MiB", f"<= {RECORD_RSS_MIB} MiB",
                         mib <= RECORD_RSS_MIB))
        out.append(Check("Same recording, dropped frames", "0" if s["ok"] else f"{s['missing']} missing",
                         f"{want} frames, stamps 0..{want - 1}", s["ok"]))
    if (r := results.get("session")):
        out.append(Check("Session snap 1080p30, command → file (median)",
                         f"{r['latency_median']:.1f} ms (encode+write {r['encode_median']:.1f} ms)",
                         f"<= {FRAME_MS:.1f} ms + encode, every shot", r["shots"] > 0 and r["late"] == 0))
    if (r := results.get("live")):
        extra = live_extra_mib(r)
        slowest = max(r["shutter_s"], default=None)
        p = r["preview"]
        out.append(Check("Live mode 1080p30, extra RSS over a plain session", f"{extra:.1f} MiB", f"<= {LIVE_EXTRA_MIB} MiB",
                         extra <= LIVE_EXTRA_MIB))
        out.append(Check(f"Live photo, shutter → all outputs (max of {LIVE_SHOTS})",
                         f"{slowest:.2f} s" if slowest is not None else "none written",
                         f"<= after + 0.5 s = {LIVE_SHUTTER_S} s",
                         len(r["shutter_s"]) == LIVE_SHOTS and slowest <= LIVE_SHUTTER_S))
        out.append(Check("Live photos during a recording, frames kept",
                         f"{r['recording_frames']} consecutive" if r["recording_consecutive"] else "broken",
                         "no frame dropped", r["recording_consecutive"]))
        out.append(Check("Live photos during an HTTP preview, frames dropped", f"{p['dropped']} of {p['offered']}", "0",
                         p["offered"] > 0 and p["dropped"] == 0))
    if (r := results.get("flips")):
        ms = r["placeholder"]["median"]
        slots = flip_slots(r)
        out.append(Check("Blurred placeholder from one 1080p frame (median)", f"{ms:.2f} ms", f"<= {PLACEHOLDER_MS:g} ms",
                         ms <= PLACEHOLDER_MS))
        out.append(Check("Flip request → first placeholder frame, on the output timeline (max)",
                         f"{max(r['timeline_ms']):.1f} ms = {slots} frame(s)" if slots is not None else "no placeholder",
                         "<= one frame interval",
                         r["count"] > 0 and r["placeholders"] == r["count"] and len(r["timeline_ms"]) == r["count"]
                         and slots is not None and slots <= FLIP_SLOTS))
        out.append(Check("Black frames in a recording through flips", str(r["black_frames"]), "0", r["black_frames"] == 0))
    if (r := results.get("terminal")):
        pct = terminal_percent(r)
        out.append(Check("Terminal preview of 1080p30, CPU over a plain session", f"{pct:.1f} % of a core",
                         f"<= {TERMINAL_PERCENT:g} %", pct <= TERMINAL_PERCENT))
    if (r := results.get("library")):
        ratio = tool_ratio(r["cold"], "gpick", "exiftool")
        out.append(Check("Library cold scan, gpick / exiftool -fast2 (wall)", f"{ratio:.3f}x", f"<= {SCAN_RATIO}x",
                         ratio <= SCAN_RATIO, "L1"))
        k = r["cold"]["census"]
        out.append(Check("Same scan: live pairs and Motion Photos", census_result(k),
                         "all found, none invented, counts exact", k["ok"], "L1"))
        ratio = tool_ratio(r["rescan"], "gpick", "find")
        out.append(Check("Library rescan of the unchanged tree, gpick / find -printf (wall)", f"{ratio:.2f}x",
                         f"<= {RESCAN_RATIO:g}x", ratio <= RESCAN_RATIO, "L2"))
        n = r["newest"]["newest"]
        ok = n["median"] <= NEWEST_MS and n["listed"] == r["newest"]["limit"] and n["newest_first"]
        out.append(Check(f"Newest {r['newest']['limit']} of {r['newest']['rows']:,} indexed assets, in-process (median)",
                         f"{n['median']:.1f} ms (max {n['max']:.1f})", f"<= {NEWEST_MS:g} ms", ok, "L3"))
    if (r := results.get("thumbs")):
        p = r["photos"]
        ref = vips_reference(p)
        ratio = tool_ratio(p, "gpick", ref)
        made = p["tools"]["gpick"]["outputs"]
        ok = made["count"] == p["files"] and made["max_side"] == 256
        result = f"{ratio:.2f}x" + ("" if ok else f" ({made['count']} thumbnails, largest side {made['max_side']})")
        if ref == "vips" and "vips_parallel" in p["tools"]:
            result += f" (vs one vipsthumbnail per core: {tool_ratio(p, 'gpick', 'vips_parallel'):.2f}x)"
        out.append(Check(f"{p['files']} JPEGs 4032x3024 → 256 px, gpick / vipsthumbnail -s 256 (wall)", result,
                         f"<= {PHOTO_THUMB_RATIO}x", ok and ratio <= PHOTO_THUMB_RATIO, "L4"))
        mib = p["tools"]["gpick"]["maxrss_kib"] / 1024
        out.append(Check("Same batch, gpick peak RSS", f"{mib:.0f} MiB", f"<= {PHOTO_THUMB_RSS_MIB} MiB",
                         mib <= PHOTO_THUMB_RSS_MIB, "L4"))
        if "vips_parallel" in p["tools"]:
            per_core = tool_ratio(p, "gpick", "vips_parallel")
            out.append(Check("Same batch, gpick / vipsthumbnail run once per core (xargs -P 2, wall)", f"{per_core:.2f}x",
                             f"<= {PHOTO_THUMB_PER_CORE}x", ok and per_core <= PHOTO_THUMB_PER_CORE, "L4"))
        v = r["videos"]
        ratio = tool_ratio(v, "gpick", "ffmpegthumbnailer")
        made = v["tools"]["gpick"]["outputs"]
        ok = made["count"] == v["files"] and made["max_side"] == 256
        out.append(Check(f"{v['files']} 1080p MP4s → 256 px, gpick / ffmpegthumbnailer (wall)",
                         f"{ratio:.2f}x" + ("" if ok else f" ({made['count']} thumbnails, largest side {made['max_side']})"),
                         f"<= {VIDEO_THUMB_RATIO:g}x", ok and ratio <= VIDEO_THUMB_RATIO, "L5"))
    if (r := results.get("realfiles")):
        out += realfiles_checks(r)
    if (r := results.get("imagesource")):
        s, f = r["size"], r["first_result"]
        out.append(Check(f"ImageSource size() of a {r['width']}x{r['height']} JPEG, in-process (median)",
                         f"{s['median_ms']:.3f} ms (max {s['max_ms']:.2f})", f"<= {SIZE_MS:g} ms", s["median_ms"] <= SIZE_MS, "L6"))
        ok = f["median_ms"] <= FIRST_DEGRADED_MS and r["first_degraded_every_run"]
        out.append(Check("Same photo, progressive 256 px: first (degraded) result (median)",
                         f"{f['median_ms']:.2f} ms (max {f['max_ms']:.1f})" + ("" if r["first_degraded_every_run"] else
                                                                              f" (first came: {r['first_origins']})"),
                         f"<= {FIRST_DEGRADED_MS:g} ms, degraded", ok, "L6"))
    if (r := results.get("picker")):
        out += picker_checks(r)
    if (r := results.get("rest")):
        out += rest_checks(r)
    if (r := results.get("avatar")):
        out += avatar_checks(r)
    if (r := results.get("stream")):
        out += stream_checks(r)
    if (r := results.get("camera")):
        out += camera_checks(r)
    if (r := results.get("soak")):
        from .targets_soak import soak_checks
        out += soak_checks(r)
    if (r := results.get("motion")):
        from .targets_motion import motion_checks
        out += motion_checks(r)
    if (r := results.get("watchclips")):
        from .targets_motion import watchclips_checks
        out += watchclips_checks(r)
    return out


def camera_checks(r):
    """C1: the choice's median on a table of at least 200 modes; C2: CPU per video second, mean of
    gpick's stage over the mean of ffmpeg's, every frame decoded by both."""
    if "absent" in r:
        return [Check("Choosing a camera's mode, 200-mode table, in-process (median)", "not run: camera data absent",
                      f"<= {MODE_CHOICE_MS:g} ms", None, "C1"),
                Check("MJPEG 1080p30 decode, CPU per video second, gpick's camera stage / ffmpeg", "not run: camera data absent",
                      f"<= {MJPEG_CPU_RATIO:g}x", None, "C2"), session_check(None)]
    c, d = r["choice"], r["decode"]
    ms = c["choice"]["median_ms"]
    g = mean([x["cpu_seconds"] for x in d["gpick"]]) / (d["frames"] / 30)
    f = mean([x["cpu_seconds"] for x in d["ffmpeg"]]) / (d["frames"] / 30)
    whole = all(x["frames"] == d["frames"] and x["dropped"] == 0 for x in d["gpick"])
    return [Check(f"Choosing a camera's mode, {c['modes']}-mode table, in-process (median)",
                  f"{ms:.3f} ms (max {c['choice']['max_ms']:.2f})", f"<= {MODE_CHOICE_MS:g} ms",
                  ms <= MODE_CHOICE_MS and c["modes"] >= 200, "C1"),
            Check("MJPEG 1080p30 decode, CPU per video second, gpick's camera stage / ffmpeg",
                  f"{g / f:.2f}x ({g:.3f} / {f:.3f} s)" + ("" if whole else " (frames missing)"),
                  f"<= {MJPEG_CPU_RATIO:g}x", g / f <= MJPEG_CPU_RATIO and whole, "C2"),
            session_check(r.get("session"))]


def session_compare(s):
    """C3's reading of the two runs: the raw one's frames each once in order, and the MJPEG one's
    slot by slot the same, a damaged frame's slot holding a neighbour (the session keeps its rate)."""
    raw, mj, damaged = s["raw"]["stamps"], s["mjpeg"]["stamps"], set(s["damaged"])
    want = s["seconds"] * 30
    raw_whole = len(raw) == want and raw[0] >= 0 and all(x == raw[0] + i for i, x in enumerate(raw))
    unlike = [i for i, (r, m) in enumerate(zip(raw, mj)) if not (m == r or (r in damaged and m in (r - 1, r + 1)))]
    good = {r for r in raw if r not in damaged}
    missing = sorted(good - set(mj))
    sent_bad = sum(1 for d in damaged if d < s["mjpeg"]["sent"])
    return {"raw_whole": raw_whole, "unlike": unlike, "good": len(good), "missing": missing, "sent_bad": sent_bad,
            "dropped": s["mjpeg"]["dropped"], "ok": raw_whole and len(mj) == len(raw) and not unlike and not missing
            and sent_bad - 1 <= s["mjpeg"]["dropped"] <= sent_bad and s["raw"]["dropped"] == 0
            and s["raw"]["failure"] is None and s["mjpeg"]["failure"] is None}


def session_check(s):
    name = "Session at 1080p30 from MJPEG (stand-in), frames delivered against raw"
    target = "the raw stand-in's frames, no good frame dropped"
    if not s:
        return Check(name, "not measured", target, None, "C3")
    x = session_compare(s)
    result = (f"{x['good'] - len(x['missing'])} of {x['good']} good frames, {x['dropped']} of {x['sent_bad']} damaged dropped"
              + ("" if x["raw_whole"] else "; the raw run lost frames") + (f"; {len(x['unlike'])} slots unlike raw" if x["unlike"] else ""))
    return Check(name, result, target, x["ok"], "C3")


def stream_checks(r):
    one, ten, ref, long = r["one"], r["ten"], r["ffmpeg"], r["long"]
    ratio = ten["cpu_percent"] / one["cpu_percent"]
    mib, s, want = long["run"]["maxrss_kib"] / 1024, long["stamps"], long["expected_frames"]
    # Recorded mid-session: any start, then every frame of one source in order.
    whole = s["frames"] == want and s["stamps"] == want and s["breaks"] == 0 and s["unreadable"] == 0 and len(s["source_ids"]) == 1
    return [
        *glass_checks(r.get("glass")),
        Check("Serve 720p30: CPU with 10 viewers / with 1", f"{ratio:.2f}x", f"<= {STREAM_VIEWERS_RATIO}x",
              ratio <= STREAM_VIEWERS_RATIO and ten["playing"] == 10 and one["playing"] == 1, "N2"),
        *own_cost_checks(r.get("own_cost")),
        Check(f"Serve and record {want // 30} s 1080p30: max RSS, frames recorded",
              f"{mib:.0f} MiB, " + (f"{want} consecutive" if whole else f"{s['stamps']} frames, {s['breaks']} breaks"),
              f"<= {STREAM_RSS_MIB} MiB, {want} consecutive stamps", mib <= STREAM_RSS_MIB and whole, "N4"),
    ]


def own_cost_checks(o):
    """N3 and N3b: gpick's serve, record and publish of a raw 720p30 file against the same
    gst-launch line (what gpick adds to its encoder) and against ffmpeg; the worst job counts."""
    if not o:
        return [Check("Serve, record, publish a raw 720p30 file: CPU per video second, gpick / the same gst-launch line",
                      "not measured", f"<= {STREAM_OWN_COST}x", None, "N3"),
                Check("The same, gpick / ffmpeg with identical x264 options", "not measured", f"<= {STREAM_FFMPEG_RATIO}x", None, "N3b")]
    def ratios(other):
        return {job: t["gpick"]["cpu_per_video_second"] / t[other]["cpu_per_video_second"] for job, t in o.items()}
    gst, ff = ratios("gst-launch"), ratios("ffmpeg")
    def text(rs):
        return ", ".join(f"{job} {x:.2f}x" for job, x in rs.items())
    return [Check("Serve, record, publish a raw 720p30 file: CPU per video second, gpick / the same gst-launch line",
                  text(gst), f"<= {STREAM_OWN_COST}x", max(gst.values()) <= STREAM_OWN_COST, "N3"),
            Check("The same, gpick / ffmpeg with identical x264 options", text(ff), f"<= {STREAM_FFMPEG_RATIO}x",
                  max(ff.values()) <= STREAM_FFMPEG_RATIO, "N3b")]


def glass_checks(g):
    """N1 and N1b: glass-to-glass over RTSP (with every stamp in order) and over SRT."""
    if not g:
        return [Check("Serve 720p30: glass-to-glass on loopback", "not measured", f"<= {STREAM_GLASS_MS} ms (median)", None, "N1"),
                Check("Publish 720p30 over SRT: glass-to-glass on loopback", "not measured",
                      f"<= SRT latency + {STREAM_SRT_MARGIN_MS} ms (median)", None, "N1b")]
    rtsp, srt = g["rtsp"], g["srt"]
    whole = rtsp["breaks"] == 0 and rtsp["unreadable"] == 0
    bound = srt["latency_ms"] + STREAM_SRT_MARGIN_MS
    return [
        Check("Serve 720p30: glass-to-glass on loopback",
              f"{rtsp['median_ms']:.1f} ms (p95 {rtsp['p95_ms']:.1f}, max {rtsp['max_ms']:.1f}); "
              + (f"{rtsp['frames']} frames in order" if whole else f"{rtsp['breaks']} breaks, {rtsp['unreadable']} unreadable"),
              f"<= {STREAM_GLASS_MS} ms (median), every stamp in order", rtsp["median_ms"] <= STREAM_GLASS_MS and whole, "N1"),
        Check("Publish 720p30 over SRT: glass-to-glass on loopback",
              f"{srt['median_ms']:.1f} ms (p95 {srt['p95_ms']:.1f}) at latency {srt['latency_ms']} ms",
              f"<= {bound} ms (median)", srt["median_ms"] <= bound, "N1b"),
    ]


def cpu_ratio(r, tool, reference):
    """Mean CPU time of `tool` over that of `reference`, in a section's "tools"."""
    return r["tools"][tool]["cpu"] / r["tools"][reference]["cpu"]


def thumbs_made(outputs):
    """How many files got a thumbnail (file name → its shape, None when none was written)."""
    return sum(1 for v in outputs.values() if v)


REAL_ROWS = ("Indexing the real corpus, cold `gpick library scan` (wall, medians)",
             "Thumbnailing it, 256 px, `gpick library thumbs` (wall, medians)",
             "Thumbnailing it, CPU time (means)", "Thumbnailing it, gpick peak RSS")


def real_targets(nproc):
    """R1, R2 (wall, CPU), R3: the issue's words."""
    return (f"at most {REAL_SCAN_RATIO:g}x `exiftool -fast2 -r` on the same files",
            f"at most {REAL_THUMB_RATIO:g}x the wall time of `vipsthumbnail -s 256` run one process per core (`xargs -P {nproc}`)",
            f"and at most {REAL_THUMB_CPU_RATIO:g}x its CPU time", "no higher than a single vipsthumbnail's on the same files")


def realfiles_checks(r):
    """R1-R3 on the real corpus (not run without it: neither met nor missed), E1 in-process."""
    refs = ("R1", "R2", "R2", "R3")
    if not r["ran"]:
        out = [Check(name, NOT_RUN, target, None, ref)
               for name, target, ref in zip(REAL_ROWS, real_targets(r["nproc"]), refs)]
    else:
        files = len(r["corpus"]["files"])
        i, t = r["index"], r["thumbs"]
        listed = sum(1 for f in i["files"].values() if f["gpick"]["listed"])
        g, v = t["tools"]["gpick"], t["tools"]["vips_parallel"]
        made, ref_made = thumbs_made(g["outputs"]), thumbs_made(v["outputs"])
        # A faster tool that writes fewer thumbnails is not faster at the same work.
        enough = made >= ref_made
        scan, wall, cpu = tool_ratio(i, "gpick", "exiftool"), tool_ratio(t, "gpick", "vips_parallel"), cpu_ratio(t, "gpick", "vips_parallel")
        mine, single = g["maxrss_kib"], t["vips_single"]["maxrss_kib"]
        results = (f"{scan:.2f}x" + ("" if listed == files else f" ({listed} of {files} files listed)"),
                   f"{wall:.2f}x (thumbnails: gpick {made}, vipsthumbnail {ref_made} of {files})",
                   f"{cpu:.2f}x", f"{mine / 1024:.0f} MiB (one vipsthumbnail: {single / 1024:.0f} MiB)")
        oks = (listed == files and scan <= REAL_SCAN_RATIO, enough and wall <= REAL_THUMB_RATIO,
               enough and cpu <= REAL_THUMB_CPU_RATIO, mine <= single)
        out = [Check(*x) for x in zip(REAL_ROWS, results, real_targets(t["nproc"]), oks, refs)]
    e = r["exif"]
    ms = e["insert"]["median_ms"]
    out.append(Check("Writing EXIF costs `snap`: `StillExif(...).insert(into:)` a 1080p JPEG, in-process",
                     f"{ms:.3f} ms (max {e['insert']['max_ms']:.3f})" + ("" if e["exif_placed"] else " (no EXIF APP1 after SOI)"),
                     f"at most {EXIF_MS:g} ms (median over {e['runs']})", ms <= EXIF_MS and e["exif_placed"], "E1"))
    return out


def picker_checks(r):
    """K1-K5: medians of the runs against their targets (K3: every photo)."""
    m = r["median"]
    mem = r["memory"]
    return [
        Check("Picker page, first 24 thumbnails painted, warm cache (median)", f"{m['grid_warm']:.0f} ms (max {max(r['grid_warm_ms']):.0f})",
              f"<= {GRID_WARM_MS} ms", m["grid_warm"] <= GRID_WARM_MS, "K1"),
        Check("Same, thumbnail cache emptied first (median)", f"{m['grid_cold']:.0f} ms (max {max(r['grid_cold_ms']):.0f})",
              f"<= {GRID_COLD_MS} ms", m["grid_cold"] <= GRID_COLD_MS, "K1"),
        Check("Picker page, the camera cell's first live frame (median)", f"{m['camera']:.0f} ms (max {max(r['camera_first_ms']):.0f})",
              f"<= {CAMERA_FIRST_MS} ms", m["camera"] <= CAMERA_FIRST_MS, "K2"),
        Check(f"Photo taken in the cell → shown first in the grid (max of {len(r['snap_ms'])})",
              f"{max(r['snap_ms']):.0f} ms (median {m['snap']:.0f})", f"<= {SNAP_SHOWN_MS} ms", max(r["snap_ms"]) <= SNAP_SHOWN_MS, "K3"),
        Check("Terminal picker in tmux 200×60, start → whole grid (median)", f"{m['terminal']:.0f} ms (max {max(r['terminal_ms']):.0f})",
              f"<= {TERMINAL_PAINT_MS} ms", m["terminal"] <= TERMINAL_PAINT_MS, "K4"),
        Check(f"Picker peak RSS, page scrolled through {mem['painted']} assets", f"{mem['peak_rss_mib']:.0f} MiB",
              f"<= {PICKER_RSS_MIB} MiB", mem["peak_rss_mib"] <= PICKER_RSS_MIB and mem["painted"] >= 1000, "K5"),
    ]


def rest_checks(r):
    """K6: the resting CPU of both sources; K7, K8: the wake-up, the blurred frame at once."""
    t, p = r["median"]["test"], r["median"]["pipewire"]
    not_running = all(any(s in ("idle", "suspended") for s in x.get("node_states", [])) for x in r["pipewire"])
    out = []
    for name, m, extra in (("test source", t, ""), ("PipeWire camera", p, "" if not_running else " (the node never left running)")):
        out.append(Check(f"Picker camera cell resting, CPU of the picker, {name} (median)",
                         f"{m['rest_cpu_percent']:.1f} % of a core (live: {m['live_cpu_percent']:.1f} %)" + extra,
                         f"<= {REST_CPU_PERCENT:g} %", m["rest_cpu_percent"] <= REST_CPU_PERCENT and not extra, "K6"))
    for name, m, limit, ref in (("test source", t, WAKE_TEST_MS, "K7"), ("PipeWire camera", p, WAKE_PIPEWIRE_MS, "K8")):
        blurred = m["blurred_shown_frames"]
        out.append(Check(f"Cell back in view → first live frame painted, {name} (median)",
                         f"{m['first_frame_ms']:.0f} ms (blurred frame within {blurred} frame{'s' if blurred != 1 else ''})",
                         f"<= {limit} ms, blurred frame within {BLURRED_FRAMES}",
                         m["first_frame_ms"] <= limit and 0 < blurred <= BLURRED_FRAMES, ref))
    return out


def avatar_checks(r):
    """A1: the render's median, with the initials drawn; A2: the ratio of means, both PNGs the asked size; A3."""
    a, cli = r["render"], r["cli"]
    ms = a["render"]["median_ms"]
    initials = a["shown"] == a["shown_expected"]
    ratio = mean_ratio(cli, "gpick", "rsvg")
    wrong = [f"{k} wrote {v['output']['width']}x{v['output']['height']}" for k, v in cli["tools"].items()
             if (v["output"]["width"], v["output"]["height"]) != (cli["size"], cli["size"])]
    return [
        Check(f"Avatar {a['size']}x{a['size']}, initials on a gradient, {a['shape']}: render in-process (median)",
              f"{ms:.2f} ms (max {a['render']['max_ms']:.1f}; with PNG encoding {a['render_png']['median_ms']:.1f})"
              + ("" if initials else f" (drew {a['shown']!r}, not {a['shown_expected']!r})"),
              f"<= {AVATAR_RENDER_MS:g} ms", ms <= AVATAR_RENDER_MS and initials, "A1"),
        Check(f"`gpick avatar` {cli['size']} px, whole process, gpick / rsvg-convert of the same SVG (means)",
              f"{ratio:.2f}x" + (f" ({'; '.join(wrong)})" if wrong else ""),
              f"<= {AVATAR_RATIO:g}x", ratio <= AVATAR_RATIO and not wrong, "A2"),
    ] + editor_checks(r.get("editor"))


def editor_checks(e):
    """A3: the median of the changes; the editor must also have ended by the page's Cancel (130)."""
    if not e:
        return []
    ms = sorted(e["ms"])
    mid = median(ms)
    ended = e["exit"] == 130
    return [Check("Avatar editor: a colour changed → the new preview shown, headless Chromium (median)",
                  f"{mid:.1f} ms (max {ms[-1]:.1f}, {len(ms)} changes)" + ("" if ended else f" (exit {e['exit']}, not 130)"),
                  f"<= {AVATAR_EDITOR_MS:g} ms", mid <= AVATAR_EDITOR_MS and ended, "A3")]
