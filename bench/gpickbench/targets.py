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


@dataclass(frozen=True)
class Check:
    name: str
    result: str
    target: str
    ok: bool


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


def checks(results):
    """Every target against this run, in the report's order; sections not run are left out."""
    out = []
    if (r := results.get("snap")):
        ratio = snap_ratio(r)
        out.append(Check("Snap 1080p JPEG, gpick / gst-launch (same work) wall time", f"{ratio:.2f}x",
                         f"<= {SNAP_RATIO}x", ratio <= SNAP_RATIO))
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
    return out
