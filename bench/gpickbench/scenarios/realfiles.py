"""8b. Real files: what phones and cameras write (HEIC, a 200 MP one among them, a JPEG Motion Photo,
Ultra HDR JPEG, AVIF, JPEG XL, DNG, WebP), the corpus the tests use (Tests/Support/RealFiles.swift):
R1 indexing it, a cold `gpick library scan`, against exiftool -fast2 -r reading the same fields; R2
thumbnailing it, `gpick library thumbs FILE…`, against vipsthumbnail -s 256 one process per core
(xargs -P), wall and CPU time (hyperfine); R3 gpick's peak RSS over that batch against one
vipsthumbnail over all the files (wait4). And E1, what writing a still's EXIF costs `snap`, timed
in-process by gpick-imagebench on a 1080p JPEG; it needs no corpus.

The corpus is $GPICK_REAL_FILES, else ../shared/real-files beside the checkout: the first of them
holding its README.md, as the tests look. Only the files whose SHA-256 is the manifest's are used,
copied into one folder of their own (the README stays out), so both tools of each row read the
same files. Without the corpus R1-R3 are recorded as not run."""
import hashlib
import json
import os
import re
import shutil

from .. import fixtures, machine, measure, pick, pickenv
from ..measure import BenchError

MANIFEST_SOURCE = "Tests/Support/RealFiles.swift"
EXIF_RUNS, EXIF_WARMUP = 30, 5
# Same PNG compression as gpick's cache files (3; vipsthumbnail's default is 6), as in L4.
PNG = "%s.png[compression=3]"


def manifest(root):
    """Name → SHA-256, read from the tests' manifest (one list for both)."""
    with open(os.path.join(root, MANIFEST_SOURCE)) as f:
        found = dict(re.findall(r'"([^"/]+)":\s*"([0-9a-f]{64})"', f.read()))
    if not found:
        raise BenchError(f"realfiles: no file names and SHA-256s in {MANIFEST_SOURCE}")
    return found


def corpus_folder(root):
    """(the corpus folder or None, the folders looked in), by the tests' rule."""
    looked = [d for d in (os.environ.get("GPICK_REAL_FILES"), os.path.join(os.path.dirname(root), "shared", "real-files")) if d]
    return next((d for d in looked if os.path.exists(os.path.join(d, "README.md"))), None), looked


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def timed(b, commands, runs, warmup, name, prepare=None, ignore_failure=False):
    """hyperfine over `commands`, with the host's steal share while it ran."""
    before = machine.cpu_ticks()
    got = measure.hyperfine(commands, runs=runs, warmup=warmup, export=b.path(f"{name}.json"), log=b.path(f"{name}.log"),
                            prepare=prepare, timeout_each=300, ignore_failure=ignore_failure)
    steal = machine.steal_share(before, machine.cpu_ticks())
    return {k: {"times": v["times"], "cpu": v["user"] + v["system"], "exit_codes": sorted(set(v["exit_codes"])),
                "command": b.show(commands[k])} for k, v in got.items()}, steal


def png_shape(path):
    try:
        with open(path, "rb") as f:
            size = pick.png_size(f.read(24))
    except OSError:
        return None
    return f"{size[0]}x{size[1]}" if size else None


def index(b, home, folder, files, runs):
    """R1: cold scans (a fresh $XDG_DATA_HOME/gpick before each) against exiftool, page cache warm."""
    config = b.path("exiftool.config")  # not "gpick…": b.show would read it as the binary
    with open(config, "w") as f:
        f.write(fixtures.EXIFTOOL_CONFIG)
    scan = [b.gpick, "library", "scan", "--library", folder]
    exiftool = ["exiftool", "-config", config, "-fast2", "-json", "-r", "-n", "-q", "-q",
                *(f"-{t}" for t in pick.EXIFTOOL_TAGS), folder]
    fresh = ["rm", "-rf", os.path.dirname(home.index)]
    b.log("realfiles: R1 untimed first runs (page cache warm for both tools)")
    measure.run(fresh, timeout=60, log=b.path("fresh.err"))
    first_gpick = measure.run(scan + ["--json"], timeout=600, log=b.path("scan.err"), stdout=b.path("scan-first.json"),
                              check=False)
    first_exiftool = measure.run(exiftool, timeout=600, log=b.path("exiftool.err"), stdout=b.path("exiftool-out.json"),
                                 check=False)
    b.log(f"realfiles: R1 cold scans, {runs} runs each (hyperfine)")
    gpick, steal_g = timed(b, {"gpick": scan}, runs, 0, "scan-cold", prepare={"gpick": fresh}, ignore_failure=True)
    exif, steal_e = timed(b, {"exiftool": exiftool}, runs, 0, "exiftool", ignore_failure=True)
    with open(b.path("scan-first.json")) as f:
        first = pick.finished(f.read())
    measure.run([b.gpick, "library", "list", "--library", folder, "--json", "--limit", "1000"], timeout=300,
                log=b.path("list.err"), stdout=b.path("list.json"))
    with open(b.path("list.json")) as f:
        listed = {os.path.basename(r["path"]): r for r in pick.records(f.read())}
    with open(b.path("exiftool-out.json")) as f:
        text = f.read()
    read = {os.path.basename(e["SourceFile"]): e for e in (json.loads(text) if text.strip() else [])}
    per_file = {}
    for name in files:
        g, e = listed.get(name, {}), read.get(name, {})
        per_file[name] = {
            "gpick": {"kind": g.get("kind"), "width": g.get("width"), "height": g.get("height"),
                      "subtypes": g.get("subtypes") or [], "listed": bool(g)},
            "exiftool": {"mime": e.get("MIMEType"), "width": e.get("ImageWidth"), "height": e.get("ImageHeight"),
                         "motion_photo": e.get("MotionPhoto"), "printed": bool(e)}}
    return {"tools": {**gpick, **exif}, "steal": {"gpick": steal_g, "exiftool": steal_e},
            "first_runs": {"gpick": first_gpick.wall, "exiftool": first_exiftool.wall},
            "exit": {"gpick": first_gpick.code, "exiftool": first_exiftool.code},
            "stderr": {"gpick": measure.tail(b.path("scan.err")), "exiftool": measure.tail(b.path("exiftool.err"))},
            "first_scan": {k: first[k] for k in ("found", "added", "unreadable", "live-pairs", "motion-photos", "bursts")
                           if k in first},
            "exiftool_fields": pick.exiftool_fields(list(read.values())), "files": per_file}


def thumbnails(b, home, paths, runs):
    """R2 and R3: gpick library thumbs over every file against vipsthumbnail one process per core
    (times, CPU), then one more run each from wait4 (peak RSS, what was written), and one
    vipsthumbnail over all the files in one process (R3's reference)."""
    n = os.cpu_count() or 1
    per_core, one = b.path("out-vipsn"), b.path("out-vips1")
    for d in (per_core, one):
        os.makedirs(d, exist_ok=True)
    listing = b.path("files.list")
    with open(listing, "w") as f:
        f.write("".join(p + "\n" for p in paths))
    gpick = [b.gpick, "library", "thumbs", *paths]
    vips_n = ["xargs", "-a", listing, "-P", n, "-n", 1, "vipsthumbnail", "-s", 256, "-o", f"{per_core}/{PNG}"]
    vips_1 = ["vipsthumbnail", "-s", 256, "-o", f"{one}/{PNG}", *paths]
    prepare = {"gpick": ["rm", "-rf", home.thumbnails], "vips_parallel": ["find", per_core, "-type", "f", "-delete"]}
    b.log(f"realfiles: R2 thumbnails of {len(paths)} files, {runs} runs per tool after one warm-up (hyperfine)")
    tools, steal = timed(b, {"gpick": gpick, "vips_parallel": vips_n}, runs, 1, "thumbs", prepare, ignore_failure=True)
    tools["gpick"]["command"] = (f"{b.gpick_shown} library thumbs {b.show(os.path.dirname(paths[0]))}/*"
                                 f"  # {len(paths)} files")
    tools["vips_parallel"]["command"] = (f"xargs -a LIST -P {n} -n 1 vipsthumbnail -s 256 -o 'bench/work/out/{PNG}'"
                                         f"  # LIST: the {len(paths)} files, one a line")
    # Peak RSS, one more run each (wait4; gpick with --json, to say which file got which thumbnail).
    home.clear_thumbnails()
    u = measure.run(gpick + ["--json"], timeout=900, log=b.path("thumbs-gpick.err"), stdout=b.path("thumbs-gpick.json"),
                    check=False)
    with open(b.path("thumbs-gpick.json")) as f:
        events = pick.records(f.read(), "thumbnail")
    made = {os.path.basename(e["source"]): png_shape(e["path"]) for e in events}
    tools["gpick"].update(maxrss_kib=u.maxrss_kib, exit=u.code, stderr=measure.tail(b.path("thumbs-gpick.err")),
                          outputs={os.path.basename(p): made.get(os.path.basename(p)) for p in paths})
    measure.run(prepare["vips_parallel"], timeout=60, log=b.path("thumbs-vipsn.err"))
    u = measure.run(vips_n, timeout=900, log=b.path("thumbs-vipsn.err"), check=False)
    tools["vips_parallel"].update(maxrss_kib=u.maxrss_kib, exit=u.code, stderr=measure.tail(b.path("thumbs-vipsn.err")),
                                  outputs=vips_outputs(per_core, paths))
    b.log("realfiles: R3 one vipsthumbnail over all the files (wait4)")
    u = measure.run(vips_1, timeout=900, log=b.path("thumbs-vips1.err"), check=False)
    single = {**u.as_dict(), "exit": u.code, "stderr": measure.tail(b.path("thumbs-vips1.err")),
              "outputs": vips_outputs(one, paths),
              "command": f"vipsthumbnail -s 256 -o 'bench/work/out/{PNG}' {b.show(os.path.dirname(paths[0]))}/*"}
    return {"nproc": n, "tools": tools, "vips_single": single, "steal": steal}


def vips_outputs(folder, paths):
    """File name → the shape of the PNG vipsthumbnail wrote for it (its %s: the name without its
    last suffix), None when it wrote none."""
    return {os.path.basename(p): png_shape(os.path.join(folder, os.path.splitext(os.path.basename(p))[0] + ".png"))
            for p in paths}


def exif(b):
    """E1: StillExif(...).insert(into:) on a 1080p JPEG from jpegenc, in-process."""
    exe = b.path("gpick-imagebench")
    if not os.path.exists(exe):
        raise BenchError("realfiles: no gpick-imagebench beside gpick (bench/run.sh builds it; see --gpick)")
    jpeg = b.path("exif-1080p.jpg")
    make = ["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=1920,height=1080", "!", "jpegenc",
            "!", "filesink", f"location={jpeg}"]
    measure.run(make, timeout=120, log=b.path("exif-jpeg.err"))
    b.log(f"realfiles: E1 EXIF into a 1080p JPEG in-process, {EXIF_RUNS} runs after {EXIF_WARMUP} warm-up")
    before = machine.cpu_ticks()
    measure.run([exe, "exif", jpeg, "--runs", EXIF_RUNS, "--warmup", EXIF_WARMUP], timeout=300, log=b.path("exifbench.err"),
                stdout=b.path("exifbench.json"))
    steal = machine.steal_share(before, machine.cpu_ticks())
    with open(b.path("exifbench.json")) as f:
        result = json.load(f)
    return {**{k: v for k, v in result.items() if k != "jpeg"}, "steal": steal, "jpeg_command": b.show(make),
            "command": f"{b.gpick_shown.rsplit('/', 1)[0]}/gpick-imagebench exif JPEG --runs {EXIF_RUNS} --warmup {EXIF_WARMUP}"}


def run(b):
    names = manifest(b.root)
    folder, looked = corpus_folder(b.root)
    out = {"nproc": os.cpu_count() or 1, "looked_in": looked, "manifest": sorted(names)}
    if folder:
        checked = {n: os.path.exists(os.path.join(folder, n)) and sha256(os.path.join(folder, n)) == h for n, h in names.items()}
        files = sorted(n for n, ok in checked.items() if ok)
        out["corpus"] = {"folder": folder, "files": {n: os.path.getsize(os.path.join(folder, n)) for n in files},
                         "missing": sorted(n for n, ok in checked.items() if not ok)}
    if not folder or not out["corpus"]["files"]:
        b.log("realfiles: no corpus (" + (f"no file in {folder} matched its SHA-256" if folder else
                                          f"none of {', '.join(looked)} holds README.md") + "): R1-R3 not run")
        out["ran"] = False
    else:
        out["ran"] = True
        copy = b.path("corpus")
        os.makedirs(copy, exist_ok=True)
        paths = []
        for n in files:
            shutil.copy2(os.path.join(folder, n), os.path.join(copy, n))
            paths.append(os.path.join(copy, n))
        runs = b.options.realfiles_runs
        with pickenv.private_home(b) as home:
            out["index"] = index(b, home, copy, files, runs)
            out["thumbs"] = thumbnails(b, home, paths, runs)
    out["exif"] = exif(b)
    return out
