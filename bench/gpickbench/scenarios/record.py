"""2. Recording 1080p30: CPU per video second and SSIM, gpick against ffmpeg/libx264 on the same
raw source; then gpick's x264 variants (`record --set …`), one run each."""
import os
import shlex

from .. import measure
from ..measure import BenchError, ssim, video_kbps, video_packets

FRAMES, FPS = 300, 30
FRAME_BYTES = 1920 * 1080 * 3 // 2


def source_command(path):
    """Moving, mixed content: SMPTE bars scrolling 4 px a frame (with their noise patch), a pinwheel
    (sharp radial edges), the moving ball, an animated zone plate (fine, changing texture)."""
    def layer(pattern, w, h, extra=""):
        return (f"videotestsrc pattern={pattern} {extra}num-buffers={FRAMES} ! "
                f"video/x-raw,width={w},height={h},framerate={FPS}/1 ! c.")
    return ("gst-launch-1.0 -q compositor name=c background=black sink_1::xpos=1280 sink_1::ypos=0 "
            "sink_2::xpos=200 sink_2::ypos=600 sink_3::xpos=1280 sink_3::ypos=600 ! "
            f"video/x-raw,width=1920,height=1080,framerate={FPS}/1 ! videoconvert ! video/x-raw,format=I420 ! "
            f"y4menc ! filesink location={path} "
            + " ".join([layer("smpte", 1920, 1080, "horizontal-speed=4 "), layer("pinwheel", 640, 480),
                        layer("ball", 640, 360), layer("zone-plate", 640, 480, "kx2=20 ky2=20 kt=1 ")]))


def outcome(path, usage, reference):
    return {"run": usage.as_dict(), "ssim": ssim(path, reference), "frames": video_packets(path), "kbps": video_kbps(path)}


def run(b):
    src = b.path("src.y4m")
    generate = source_command(src)
    b.log(f"record: generating {FRAMES} raw 1080p frames ({FRAMES * FRAME_BYTES // 10**6} MB of y4m)")
    measure.run(shlex.split(generate), timeout=300, log=b.path("gen.log"))
    os.sync()  # write the source out now, not while a recorder is being timed
    if os.path.getsize(src) < FRAMES * FRAME_BYTES:
        raise BenchError(f"record: {src} is too small ({os.path.getsize(src)} bytes)")
    seconds = FRAMES // FPS
    gpick = [b.gpick, "record", "--source", f"file:{src}", "--width", "1920", "--height", "1080",
             "--fps", str(FPS), "--duration", str(seconds)]
    ffmpeg = ["ffmpeg", "-nostdin", "-y", "-i", src, "-c:v", "libx264"]
    out = {"seconds": seconds, "frames": FRAMES, "source_command": b.show(generate),
           "commands": {"gpick": b.show(gpick + ["-o", b.path("gpick.mp4")]),
                        "ffmpeg": b.show(ffmpeg + [b.path("ffmpeg.mp4")]),
                        "ssim": b.show(f"ffmpeg -i OUT.mp4 -i {src} -lavfi ssim -f null -")},
           "tools": {"gpick": {"runs": []}, "ffmpeg": {"runs": []}}, "variants": []}
    for i in range(1, b.options.record_runs + 1):
        for name, argv, limit in (("gpick", gpick + ["-o"], 180), ("ffmpeg", ffmpeg, 600)):
            b.log(f"  run {i}/{b.options.record_runs}: {name}")
            dest = b.path(f"{name}.mp4")
            usage = measure.run(argv + [dest], timeout=limit, log=b.path(f"{name}.log"))
            out["tools"][name]["runs"].append(usage.as_dict())
    for name in ("gpick", "ffmpeg"):
        dest = b.path(f"{name}.mp4")
        out["tools"][name].update(ssim=ssim(dest, src), frames=video_packets(dest), kbps=video_kbps(dest))
    for i, settings in enumerate(b.options.variants, 1):
        b.log(f"  variant {i}/{len(b.options.variants)}: {' '.join(settings)}")
        dest = b.path(f"variant{i}.mp4")
        sets = [arg for kv in settings for arg in ("--set", kv)]
        try:
            usage = measure.run(gpick + sets + ["-o", dest], timeout=180, log=b.path(f"variant{i}.log"))
            out["variants"].append({"settings": settings, **outcome(dest, usage, src)})
        except BenchError as e:  # a variant gpick refuses is a row of the table, not the end of the bench
            b.log(f"  variant failed: {str(e).splitlines()[0]}")
            out["variants"].append({"settings": settings, "error": str(e).splitlines()[0]})
        if os.path.exists(dest):
            os.remove(dest)
    for name in ("src.y4m", "gpick.mp4", "ffmpeg.mp4"):
        os.remove(b.path(name))
    return out
