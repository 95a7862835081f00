"""6. Flips: the placeholder's own cost (the C routine on one 1080p frame), then flips in a 1080p30
session with a recording running: flip request → first placeholder frame (from the JSON events),
and black frames in the recording (ffmpeg's blackframe filter, not gpick's own reading)."""
import glob
import os
import shutil

from .. import events, measure
from ..measure import BenchError

FLIPS = 6


def timings(text):
    """`name median=… p95=…` lines of bench/imaging/bench.c → {name: {"median": ms, "p95": ms}}."""
    out = {}
    for line in text.splitlines():
        name, *pairs = line.split() or [""]
        if pairs and all("=" in p for p in pairs):
            out[name] = {k: float(v) for k, v in (p.split("=", 1) for p in pairs)}
    return out


def placeholder(b):
    # SwiftPM compiles CImaging with its clang at -O2: measure that compiler's code when there is one.
    cc = shutil.which("clang") or shutil.which("cc")
    if cc is None:
        raise BenchError("flips: no C compiler (clang or cc) for bench/imaging/bench.c")
    exe = b.path("imaging-bench")
    sources = sorted(glob.glob("Sources/CImaging/*.c", root_dir=b.root))
    measure.run([cc, "-O2", "-I", "Sources/CImaging/include", "-I", "Sources/CImaging", "bench/imaging/bench.c", *sources,
                 "-o", exe, "-lm"], timeout=120, log=b.path("imaging-cc.log"), cwd=b.root)
    measure.run([exe], timeout=120, log=b.path("imaging.err"), stdout=b.path("imaging.txt"))
    with open(b.path("imaging.txt")) as f:
        found = timings(f.read())
    if not {"placeholder_1080p_ms", "blend_1080p_ms"} <= found.keys():
        raise BenchError(f"flips: bench/imaging/bench.c printed no timings ({b.path('imaging.txt')})")
    return {"compiler": os.path.basename(cc), "sources": sources, "placeholder": found["placeholder_1080p_ms"], "blend": found["blend_1080p_ms"]}


def run(b):
    b.log("flips: placeholder cost, then flips with a recording running")
    out = placeholder(b)
    os.makedirs(b.path("flip"), exist_ok=True)
    script = b.script("flip.script", ["record start flips.mp4", "wait 1.5s", *(["flip", "wait 1.2s"] * FLIPS), "record stop"])
    argv = [b.gpick, "session", "--source", "test", "--front", "test:pinwheel?id=2&warmup=0.5", "--width", "1920",
            "--height", "1080", "--fps", "30", "--json", "--output-dir", b.path("flip")]
    measure.run(argv, timeout=120, log=b.path("flip.err"), stdin=script, stdout=b.path("flip.json"))
    with open(b.path("flip.json")) as f:
        found = events.flips(events.parse(f.read()))
    movie = b.path("flip", "flips.mp4")
    out.update(
        command=f"{{ printf 'record start flips.mp4\\nwait 1.5s\\n'; {FLIPS}× printf 'flip\\nwait 1.2s\\n'; "
                f"printf 'record stop\\n'; }} | {b.show(argv)}",
        **found,
        black_frames=measure.black_frames(movie),
        recording_frames=measure.video_packets(movie),
        recording_seconds=float(measure.probe(movie, "format=duration")),
    )
    return out
