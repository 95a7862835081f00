"""9. ImageSource (L6): what a picker cell asks of a photo first, timed in-process by
gpick-imagebench on one of L4's 12 MP camera JPEGs (EXIF orientation 6, an EXIF thumbnail as
phones write one): `size()` from the headers, and the first result of a progressive 256 px
request, which is the degraded stand-in (the EXIF thumbnail, turned upright)."""
import json
import os

from .. import fixtures, machine, measure
from ..measure import BenchError


def run(b):
    exe = b.path("gpick-imagebench")
    if not os.path.exists(exe):
        raise BenchError("imagesource: no gpick-imagebench beside gpick (bench/run.sh builds it; see --gpick)")
    photo = fixtures.photos(b)[0]
    runs = b.options.imagesource_runs
    b.log(f"imagesource: L6 size() and the first progressive result of {os.path.basename(photo)}, {runs} runs each after 20 warm-up")
    before = machine.cpu_ticks()
    measure.run([exe, photo, "--runs", runs, "--warmup", 20], timeout=600, log=b.path("imagebench.err"),
                stdout=b.path("imagebench.json"))
    steal = machine.steal_share(before, machine.cpu_ticks())
    with open(b.path("imagebench.json")) as f:
        result = json.load(f)
    return {**result, "photo_bytes": os.path.getsize(photo), "steal": steal,
            "command": f"{b.gpick_shown.rsplit('/', 1)[0]}/gpick-imagebench PHOTO --runs {runs} --warmup 20"}
