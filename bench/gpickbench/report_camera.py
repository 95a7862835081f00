"""RESULTS.md's camera section (C1, C2, C3)."""
from .report_realfiles import verdict
from .report_stream import by_ref
from .targets import session_compare


def camera(r, c):
    (c1,), (c2,), (c3,) = by_ref(c, "C1"), by_ref(c, "C2"), by_ref(c, "C3")
    head = ["## 13. Cameras: choosing a mode, decoding MJPEG, a session from MJPEG (C1–C3)", ""]
    if "absent" in r:
        return head + [f"Not run: no camera data in {' or '.join(r['absent'])}.", ""]
    ch, d = r["choice"], r["decode"]

    def timing(label, x):
        return f"| {label} | {x['median_ms']:.3f} | {x['p90_ms']:.3f} | {x['min_ms']:.3f} | {x['max_ms']:.3f} |"
    rows = [f"| gpick's camera stage ({x.get('decoder', '?')}) | {x['cpu_seconds']:.3f} | {x['wall_seconds']:.3f} | {x['frames']} | {x['dropped']} |"
            for x in d["gpick"]] + [f"| ffmpeg | {x['cpu_seconds']:.3f} | {x['wall_seconds']:.3f} | {d['frames']} | |"
                                    for x in d["ffmpeg"]]
    fb = d.get("fallback")
    if fb:
        rows.append(f"| without gpickjpegdec ({fb.get('decoder', '?')} and the code walk; not the target) | "
                    f"{fb['cpu_seconds']:.3f} | {fb['wall_seconds']:.3f} | {fb['frames']} | {fb['dropped']} |")
    return head + [
        "### C1: the mode choice", "",
        f"gpick-camerabench (bench/camerabench, linking GpickKit) reads {ch['listing'].rsplit('/', 2)[-2]}/"
        f"{ch['listing'].rsplit('/', 1)[-1]} ({ch['formats']} sizes and formats, {ch['modes']} modes) and times "
        f"`ModeChoice.choose` for {ch['requests']} requests, {ch['runs']} times each after 20 warm-up.", "",
        "```", ch["command"], "```", "",
        "| measure | median ms | p90 | min | max |", "|---|---|---|---|---|",
        timing("one choice (the target)", ch["choice"]), timing("reading the listing", ch["parse"]), "",
        "Chosen: " + "; ".join(ch["chosen"]) + ".", "",
        f"- **{c1.result}** — target {c1.target}: {verdict(c1.ok)}", "",
        "### C2: MJPEG 1080p30 decoding", "",
        f"The camera's stage (`source-v4l2.yaml`'s own text, the camera replaced by an appsrc sending one real 1080p frame, "
        f"{d['frame_bytes']:,} bytes, {d['frames']} times at 30 fps, the damaged-frame check installed) against ffmpeg on "
        f"the same frames in one file, {d['runs']} runs each; CPU from getrusage (the stage: from PLAYING to the end).", "",
        "```", d["gpick_command"], d["ffmpeg_command"], "```", "",
        "| tool | CPU s | wall s | frames | dropped |", "|---|---|---|---|---|", *rows, "",
        f"- CPU per video second, gpick / ffmpeg: **{c2.result}** — target {c2.target}: {verdict(c2.ok)} "
        f"(host steal {d['steal']:.1f} %)", "",
        "The stage's decoder is gpickjpegdec (CJPEGDecoder: libjpeg-turbo's libjpeg, the library jpegdec uses, "
        "opened by gpick), which decodes each frame once straight into the output planes and drops a damaged "
        "one as it decodes: at libjpeg's corrupt-data warnings, which jpegdec keeps to itself, and at coefficients "
        "no 8-bit JPEG holds, checked as each MCU leaves the entropy decoder. Until 2026-11-29 the stage ran "
        "jpegdec behind a walk of every frame's Huffman codes (`JPEGScanWalk`), which is how it found damaged "
        "codes: the entropy decoding done twice, 1.10–1.19x. The decoder finds more than the walk did (64 of "
        "202 frames with one bit flipped, against the walk's 37; JPEGDecoderTests). The walk remains for "
        "where gpickjpegdec is not there (the last row above).", "",
        "Where it goes (perf, the stage alone, 2026-11-29): libjpeg about 84 % of the stage's CPU, the "
        "coefficient check about 9 %, the marker check before the decoder about 2.5 %, the rest (GStreamer, "
        "the kernel) about 4 %.", "",
        *session(r.get("session"), c3)]


def session(s, c3):
    if not s:
        return ["### C3: a session from MJPEG against raw", "", "Not measured in this run.", ""]
    x = session_compare(s)
    raw, mj = s["raw"], s["mjpeg"]
    return [
        "### C3: a session from MJPEG against raw", "",
        f"A whole session (640x360 at 30 fps) on the camera stand-in (an appsrc behind the BRIO's 1080p modes, in "
        f"v4l2src's place in `source-v4l2.yaml`'s own text) for {s['seconds']} s, twice: the camera at NV12 1920x1080@30 "
        "sending stamped frames, then at MJPG 1920x1080@30 sending the same frames JPEG-encoded (jpegenc, 4:2:0) with "
        f"one in ten from the 15th cut in half. The stamps of the frames the session delivered, slot by slot.", "",
        "```", s["command"], "```", "",
        "| camera mode | frames sent | damaged sent | dropped and counted | delivered | stamps |", "|---|---|---|---|---|---|",
        f"| {raw['mode']} | {raw['sent']} | 0 | {raw['dropped']} | {len(raw['stamps'])} | "
        f"{raw['stamps'][0]}..{raw['stamps'][-1]}" + (", each once in order |" if x["raw_whole"] else ", NOT each once in order |"),
        f"| {mj['mode']} | {mj['sent']} | {x['sent_bad']} | {mj['dropped']} | {len(mj['stamps'])} | "
        f"{x['good'] - len(x['missing'])} of {x['good']} good frames; {len(x['unlike'])} slots unlike the raw run |", "",
        f"- C3: **{c3.result}** — target {c3.target}: {verdict(c3.ok)}", ""]
