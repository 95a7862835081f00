"""13. Cameras (C1, C2): choosing a mode from a real camera's table, and decoding MJPEG as the
camera's stage does. C1: gpick-camerabench reads a Logitech C525's `v4l2-ctl --list-formats-ext`
listing (50 sizes and formats, 296 modes) and times `ModeChoice.choose` for the six requests of the
mode tests. C2: the camera stage (`source-v4l2.yaml`'s own text, the camera replaced by an appsrc
that sends a real 1080p frame 300 times at 30 fps, with the damaged-frame check) decodes it, against
`ffmpeg -f mjpeg -i FRAMES -f null -` on the same frames in one file; CPU per second of video.
C3: a whole session on the camera stand-in at 1920x1080@30 for SESSION seconds, from raw frames and
from the same frames JPEG-encoded with one in ten cut short; the stamps it delivers, slot by slot.

The data is ../shared/cameras beside the checkout (or $GPICK_CAMERA_DATA), as the tests find it;
without it the section is not run, and says so."""
import json
import os

from .. import machine, measure

LISTING = "formats/logitech-c525.txt"
FRAME = "mjpeg/camera-streamer_capture.jpeg"
FRAMES = 300
RUNS = 3
SESSION = 60


def data_folder(root):
    looked = [d for d in (os.environ.get("GPICK_CAMERA_DATA"), os.path.join(os.path.dirname(root), "shared", "cameras")) if d]
    return next((d for d in looked if os.path.exists(os.path.join(d, "INDEX.txt"))), None), looked


def run(b):
    folder, looked = data_folder(b.root)
    if not folder or not all(os.path.exists(os.path.join(folder, p)) for p in (LISTING, FRAME)):
        b.log(f"camera: not run, no camera data in {' or '.join(looked)}")
        return {"absent": looked}
    exe = os.path.join(os.path.dirname(b.gpick_shown), "gpick-camerabench")
    listing, frame = os.path.join(folder, LISTING), os.path.join(folder, FRAME)
    b.log("camera: C1 mode choice in-process, 500 runs of 6 requests after 20 warm-up")
    measure.run([exe, "choice", listing, "--runs", 500], timeout=600, log=b.path("camerabench-choice.err"),
                stdout=b.path("camerabench-choice.json"))
    with open(b.path("camerabench-choice.json")) as f:
        choice = json.load(f)
    choice["command"] = f"{b.gpick_shown.rsplit('/', 1)[0]}/gpick-camerabench choice {LISTING} --runs 500"
    # C2: the same frames in one MJPEG file for ffmpeg (its mjpeg demuxer splits them).
    stream = b.path("frames.mjpeg")
    with open(frame, "rb") as f:
        one = f.read()
    with open(stream, "wb") as f:
        for _ in range(FRAMES):
            f.write(one)
    b.log(f"camera: C2 MJPEG 1080p decode, {FRAMES} frames, {RUNS} runs each of gpick's stage and ffmpeg")
    gpick, ffmpeg = [], []
    ff = ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "mjpeg", "-framerate", "30", "-i", stream, "-f", "null", "-"]
    before = machine.cpu_ticks()
    for i in range(RUNS):
        measure.run([exe, "decode", frame, "--frames", FRAMES], timeout=600, log=b.path("camerabench-decode.err"),
                    stdout=b.path(f"camerabench-decode-{i}.json"))
        with open(b.path(f"camerabench-decode-{i}.json")) as f:
            gpick.append(json.load(f))
        u = measure.run(ff, timeout=600, log=b.path("ffmpeg-mjpeg.log"))
        ffmpeg.append({"cpu_seconds": u.cpu, "wall_seconds": u.wall})
    steal = machine.steal_share(before, machine.cpu_ticks())
    # Once more where libjpeg.so.62 would not open (gpick's decoder not registered): jpegdec, with
    # gpick's own walk of each frame's codes before it.
    b.log("camera: C2 once with jpegdec and the code walk in gpick's decoder's place")
    asked = os.environ.get("GST_PLUGIN_FEATURE_RANK")
    os.environ["GST_PLUGIN_FEATURE_RANK"] = "gpickjpegdec:NONE"
    try:
        measure.run([exe, "decode", frame, "--frames", FRAMES], timeout=600, log=b.path("camerabench-decode.err"),
                    stdout=b.path("camerabench-decode-fallback.json"))
    finally:
        if asked is None:
            del os.environ["GST_PLUGIN_FEATURE_RANK"]
        else:
            os.environ["GST_PLUGIN_FEATURE_RANK"] = asked
    with open(b.path("camerabench-decode-fallback.json")) as f:
        fallback = json.load(f)
    b.log(f"camera: C3 a session on the stand-in at 1080p30, {SESSION} s from raw frames, then from MJPEG")
    measure.run([exe, "session", SESSION], timeout=600, log=b.path("camerabench-session.err"),
                stdout=b.path("camerabench-session.json"))
    with open(b.path("camerabench-session.json")) as f:
        session = json.load(f)
    session["command"] = f"{b.gpick_shown.rsplit('/', 1)[0]}/gpick-camerabench session {SESSION}"
    return {"choice": choice, "session": session, "decode": {
        "frames": FRAMES, "frame": FRAME, "frame_bytes": len(one), "runs": RUNS, "steal": steal,
        "gpick": gpick, "ffmpeg": ffmpeg, "fallback": fallback,
        "gpick_command": f"{b.gpick_shown.rsplit('/', 1)[0]}/gpick-camerabench decode {FRAME} --frames {FRAMES}",
        "ffmpeg_command": b.show(ff)}}
