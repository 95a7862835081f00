"""`python3 -m gpickbench` (what bench/run.sh and `make bench` run): benchmarks a built gpick and
writes bench/RESULTS.md. `make bench` builds the release binaries first; the library, imagesource
and avatar sections build their small in-process benches (gpick-libbench, gpick-imagebench,
gpick-avatarbench) beside them (a no-op when current)."""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

from . import machine, report, scenarios
from .context import Bench
from .measure import BenchError, output, run

DEFAULT_VARIANTS = ("speed-preset=ultrafast;speed-preset=superfast;speed-preset=faster;speed-preset=medium;"
                    "quantizer=23;quantizer=25;speed-preset=faster quantizer=23")
TOOLS = {"gst-launch-1.0": "gstreamer1.0-tools", "ffmpeg": "ffmpeg", "ffprobe": "ffmpeg", "hyperfine": "hyperfine",
         "tmux": "tmux", "/usr/bin/time": "time"}
# The pick half's sections: their reference tools, and the executables beside gpick they run.
SECTION_TOOLS = {"library": {"exiftool": "libimage-exiftool-perl", "find": "findutils"},
                 "thumbs": {"vipsthumbnail": "libvips-tools", "ffmpegthumbnailer": "ffmpegthumbnailer",
                            "exiftool": "libimage-exiftool-perl", "xargs": "findutils"},
                 "realfiles": {"exiftool": "libimage-exiftool-perl", "vipsthumbnail": "libvips-tools", "xargs": "findutils"},
                 "picker": {"chromium": "chromium", "chromedriver": "chromium-driver"},
                 "rest": {"chromium": "chromium", "chromedriver": "chromium-driver", "pipewire": "pipewire",
                          "wireplumber": "wireplumber", "dbus-daemon": "dbus-daemon", "pw-dump": "pipewire-bin"},
                 "avatar": {"rsvg-convert": "librsvg2-bin", "chromium": "chromium", "chromedriver": "chromium-driver"}}
HELPERS = {"library": ("gpick-library", "gpick-libbench"), "thumbs": ("gpick-library",),
           "realfiles": ("gpick-library", "gpick-imagebench"), "imagesource": ("gpick-imagebench",),
           "picker": ("gpick-library",), "rest": ("gpick-library",), "avatar": ("gpick-avatar", "gpick-avatarbench"),
           "camera": ("gpick-camerabench",)}
# The small in-process benches, built beside gpick for the sections that run them.
BENCH_PRODUCTS = {"library": "gpick-libbench", "realfiles": "gpick-imagebench", "imagesource": "gpick-imagebench",
                  "avatar": "gpick-avatarbench", "camera": "gpick-camerabench"}
ELEMENTS = ("videotestsrc", "compositor", "y4menc", "jpegenc", "x264enc", "mp4mux")


def variants(text):
    """'a=1;b=2 c=3' → [['a=1'], ['b=2', 'c=3']]; 'none' → []."""
    return [] if text.strip() in ("", "none") else [v.split() for v in text.split(";") if v.strip()]


def sections(text):
    names = [s.strip() for s in text.split(",") if s.strip()]
    unknown = [s for s in names if s not in scenarios.ALL]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown section {', '.join(unknown)} (sections: {', '.join(scenarios.ALL)})")
    return names


def options(argv):
    p = argparse.ArgumentParser(prog="bench/run.sh", description=__doc__)
    p.add_argument("--gpick", default=".build/release/gpick", help="the binary to benchmark")
    p.add_argument("--only", type=sections, default=list(scenarios.ALL), metavar="A,B",
                   help=f"sections to run ({', '.join(scenarios.ALL)}); the report holds only those")
    p.add_argument("--snap-runs", type=int, default=40, help="timed snap runs per tool")
    p.add_argument("--snap-warmup", type=int, default=3, help="warm-up runs per tool before the first round")
    p.add_argument("--record-runs", type=int, default=2, help="runs per recorder; CPU is their mean")
    p.add_argument("--variants", type=variants, default=variants(DEFAULT_VARIANTS),
                   help="';'-separated gpick --set variants (NAME=VALUE, space-separated within one); 'none' skips")
    p.add_argument("--memory-seconds", type=int, default=60, help="length of the memory recording")
    p.add_argument("--session-shots", type=int, default=20, help="snaps timed in the running session")
    p.add_argument("--library-runs", type=int, default=5, help="timed cold scans by gpick; rescans: twice as many")
    p.add_argument("--exiftool-runs", type=int, default=1,
                   help="timed exiftool runs of the cold scan (about 50 s each, after one untimed run)")
    p.add_argument("--libbench-runs", type=int, default=50, help="timed in-process queries (L3) after 5 warm-up")
    p.add_argument("--thumb-runs", type=int, default=3, help="timed batches per thumbnailer, after one warm-up")
    p.add_argument("--realfiles-runs", type=int, default=10,
                   help="timed cold scans and thumbnail batches per tool on the real corpus (R1, R2)")
    p.add_argument("--imagesource-runs", type=int, default=200, help="timed in-process size() calls and requests (L6)")
    p.add_argument("--avatar-renders", type=int, default=200, help="timed in-process avatar renders (A1) after 20 warm-up")
    p.add_argument("--avatar-runs", type=int, default=40,
                   help="timed `gpick avatar` and rsvg-convert runs each (A2), after 3 warm-up")
    p.add_argument("--quiet-wait", type=int, default=600, help="seconds to wait at most for host steal under 8 %%")
    p.add_argument("--out", default="bench/RESULTS.md")
    p.add_argument("--keep", action="store_true", help="keep the scratch directory")
    p.add_argument("--report", metavar="RESULTS_JSON", help="only render the report from a saved results file")
    return p.parse_args(argv)


def preflight(gpick, sections=()):
    tools = dict(TOOLS)
    for s in sections:
        tools.update(SECTION_TOOLS.get(s, {}))
    missing = [f"{tool} (Debian package {pkg})" for tool, pkg in tools.items() if not shutil.which(tool)]
    if missing:
        raise BenchError(f"missing: {', '.join(missing)}; `make setup` installs them")
    if not os.access(gpick, os.X_OK):
        raise BenchError(f"no gpick binary at {gpick}: build it first (make build)")
    # The executables beside gpick that the sections run (the small benches are built after this).
    for helper in sorted({h for s in sections for h in HELPERS.get(s, ())} - set(BENCH_PRODUCTS.values())):
        if not os.access(os.path.join(os.path.dirname(gpick), helper), os.X_OK):
            raise BenchError(f"no {helper} beside {gpick}: build it first (make build)")
    for element in ELEMENTS:
        output(["gst-inspect-1.0", element])
    if "libx264" not in output(["ffmpeg", "-hide_banner", "-encoders"]):
        raise BenchError("ffmpeg has no libx264 encoder")


def build_benches(o, root, products):
    """The in-process benches (bench/libbench for L3, bench/imagebench for L6, bench/avatarbench for
    A1) beside gpick, built in gpick's own build folder (`make build` builds only gpick and its
    helpers; this adds the small benches to the same build, and is a no-op when they are current)."""
    if not products:
        return
    release = os.path.dirname(os.path.abspath(o.gpick))
    if os.path.basename(release) != "release":
        if all(os.access(os.path.join(release, p), os.X_OK) for p in products):
            return
        raise BenchError(f"no {' or '.join(products)} beside {o.gpick}, and {release} is not a SwiftPM release folder to build in")
    os.makedirs(os.path.join(root, "bench/work"), exist_ok=True)
    log = os.path.join(root, "bench/work/bench-build.log")
    for product in products:  # swift build takes one --product (given twice, it builds the last)
        argv = [os.environ.get("SWIFT", "swift"), "build", "-c", "release", "--product", product, "--static-swift-stdlib",
                "--scratch-path", os.path.dirname(release)]
        print(f"bench: building {product} ({' '.join(argv)})", file=sys.stderr, flush=True)
        run(argv, timeout=1800, log=log, cwd=root)


def benchmark(o, root):
    preflight(o.gpick, o.only)
    build_benches(o, root, sorted({BENCH_PRODUCTS[s] for s in o.only if s in BENCH_PRODUCTS}))
    os.makedirs(os.path.join(root, "bench/work"), exist_ok=True)
    work = tempfile.mkdtemp(prefix="run.", dir=os.path.join(root, "bench/work"))
    try:
        # Benchmark a snapshot of the binary and the pipeline files, so a rebuild or an edit during
        # the run cannot mix two versions into one set of results.
        gpick = os.path.join(work, "gpick")
        shutil.copy2(o.gpick, gpick)
        # gpick runs gpick-library from its own folder: the copy gets one beside it.
        for helper in sorted({h for s in o.only for h in HELPERS.get(s, ())}):
            shutil.copy2(os.path.join(os.path.dirname(o.gpick), helper), os.path.join(work, helper))
        shutil.copytree(os.path.join(root, "pipelines"), os.path.join(work, "pipelines"))
        os.environ["GPICK_PIPELINES"] = os.path.join(work, "pipelines")
        b = Bench(root=root, work=work, gpick=gpick, gpick_shown=o.gpick, options=o)
        meta = {**machine.facts(gpick, o.gpick, root), "gpick_path": o.gpick, "sections": ", ".join(o.only)}
        b.log("waiting for a quiet machine")
        meta["steal_start"] = machine.settle(b.log, o.quiet_wait)
        meta["load_start"] = machine.load()
        meta["date"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        results = {"meta": meta}
        for name in o.only:
            results[name] = scenarios.ALL[name](b)
        meta.update(load_end=machine.load(), seconds=time.monotonic() - b.started)
        return results
    finally:
        if o.keep:
            print(f"bench: kept the scratch files in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def main(argv=None):
    o = options(argv)
    root = os.getcwd()
    try:
        if o.report:
            with open(o.report) as f:
                results = json.load(f)
        else:
            results = benchmark(o, root)
            # A run written elsewhere (a partial one, say) keeps its results beside its report.
            saved = (os.path.join(root, "bench/work/results.json") if o.out == "bench/RESULTS.md"
                     else os.path.splitext(o.out)[0] + ".json")
            with open(saved, "w") as f:
                json.dump(results, f, indent=1)
    except BenchError as e:
        print(f"bench: {e}", file=sys.stderr)
        return 1
    text = report.render(results)
    with open(o.out + ".tmp", "w") as f:
        f.write(text + "\n")
    os.replace(o.out + ".tmp", o.out)
    checks = report.T.checks(results)
    print("\n".join(report.summary(checks)))
    failed = [c.name for c in checks if c.ok is False]
    not_run = sum(1 for c in checks if c.ok is None)
    print(f"bench: wrote {o.out}" + (f"; {len(failed)} target(s) missed" if failed else "; every target met")
          + (f"; {not_run} not run" if not_run else ""), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
