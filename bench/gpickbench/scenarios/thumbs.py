"""8. Thumbnails: L4 200 JPEGs of 4032×3024 and L5 50 1080p MP4s to 256 px, gpick against
vipsthumbnail and ffmpegthumbnailer on the same files, whole-batch wall time (hyperfine).

gpick makes them with `gpick library thumbs FILE…`: one process, a core's worth of decodes at a
time, into the freedesktop.org cache (PNG, deleted before each run). The reference tools get the
same work and the same cores: vipsthumbnail over all files in one process (libvips threads
inside it) and in `nproc` processes side by side, the faster of the two being the reference;
ffmpegthumbnailer (one file per process) in `nproc` processes side by side (xargs -P), at the
same position as gpick's frame (a third in, -t 33%), and one after the other for comparison."""
import hashlib
import math
import os
import re
import statistics
import subprocess
import urllib.parse

from .. import fixtures, machine, measure, pick, pickenv


def timed(b, commands, runs, warmup, name, prepare):
    before = machine.cpu_ticks()
    got = measure.hyperfine(commands, runs=runs, warmup=warmup, export=b.path(f"{name}.json"), log=b.path(f"{name}.log"),
                            prepare=prepare, timeout_each=300)
    steal = machine.steal_share(before, machine.cpu_ticks())
    return {k: {"times": v["times"], "cpu": v["user"] + v["system"]} for k, v in got.items()}, steal


def sizes(folder):
    """(count, largest side seen, smallest side seen) of the PNGs in a folder tree."""
    found = []
    for d, _, names in os.walk(folder):
        for n in names:
            with open(os.path.join(d, n), "rb") as f:
                size = pick.png_size(f.read(24))
            if size:
                found.append(size)
    return {"count": len(found), "max_side": max((max(s) for s in found), default=0),
            "shapes": sorted({f"{w}x{h}" for w, h in found})}


def listing(b, name, files, basenames=False):
    path = b.path(name)
    with open(path, "w") as f:
        f.write("".join((os.path.basename(p) if basenames else p) + "\n" for p in files))
    return path


def batch(b, home, label, files, refs, runs):
    """gpick library thumbs over `files` against the reference commands `refs` (name → argv,
    each writing into its own output folder): times, CPU, peak RSS, and what each wrote."""
    gpick = [b.gpick, "library", "thumbs", *files]
    commands = {"gpick": gpick, **{k: v["argv"] for k, v in refs.items()}}
    prepare = {"gpick": ["rm", "-rf", home.thumbnails],
               **{k: ["find", v["out"], "-type", "f", "-delete"] for k, v in refs.items()}}
    b.log(f"thumbs: {label}, {runs} runs per tool after one warm-up (hyperfine)")
    tools, steal = timed(b, commands, runs, 1, label, prepare)
    # Peak RSS, one more run each (wait4), outputs checked after it.
    home.clear_thumbnails()
    tools["gpick"]["maxrss_kib"] = measure.run(gpick, timeout=900, log=b.path(f"{label}-gpick.err")).maxrss_kib
    tools["gpick"]["outputs"] = sizes(home.thumbnails)
    for k, v in refs.items():
        measure.run(prepare[k], timeout=60, log=b.path(f"{label}-{k}.err"))
        tools[k]["maxrss_kib"] = measure.run(v["argv"], timeout=900, log=b.path(f"{label}-{k}.err")).maxrss_kib
        tools[k]["outputs"] = sizes(v["out"])
    for k, v in tools.items():
        v["command"] = refs[k]["shown"] if k in refs else (
            f"{b.gpick_shown} library thumbs {b.show(os.path.dirname(files[0]))}/*.{files[0].rsplit('.', 1)[1]}"
            f"  # {len(files)} files")
    return {"files": len(files), "tools": tools, "steal": steal}


def luma_ssim(a, b):
    """ffmpeg's SSIM of two pictures' luma (one may carry alpha, the other not)."""
    done = subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-i", a, "-i", b, "-lavfi",
                           "[0]format=gray[a];[1]format=gray[b];[a][b]ssim", "-f", "null", "-"],
                          capture_output=True, text=True, timeout=120)
    found = re.findall(r"SSIM .*All:([0-9.]+)", done.stderr)
    if done.returncode != 0 or not found:
        raise measure.BenchError(f"ffmpeg ssim of {a}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return float(found[-1])


def faithfulness(b, home, files, vips_out):
    """How close each tool's thumbnail is to the photo decoded whole and scaled by Lanczos3 into
    the same box (libvips' thumbnail_image of the full decode, turned upright): luma SSIM over the
    distinct photos. Both tools shrink a JPEG while decoding it, by different amounts."""
    got = {"gpick": [], "vips": []}
    for path in files:
        uri = "file://" + urllib.parse.quote(os.path.abspath(path), safe="/")
        mine = os.path.join(home.thumbnails, "large", hashlib.md5(uri.encode()).hexdigest() + ".png")
        theirs = os.path.join(vips_out, os.path.splitext(os.path.basename(path))[0] + ".png")
        reference = b.path("reference.png")
        measure.run(["vips", "thumbnail_image", path, reference, "256", "--height", "256", "--size", "down"],
                    timeout=120, log=b.path("faithfulness.log"))
        got["gpick"].append(luma_ssim(mine, reference))
        got["vips"].append(luma_ssim(theirs, reference))
    return {k: {"mean": statistics.mean(v), "min": min(v)} for k, v in got.items()} | {"photos": len(files)}


def single(b, home, commands, name, runs=10):
    """One file per process, for comparison: start-up included."""
    tools, steal = timed(b, commands, runs, 2, name, {k: ["rm", "-rf", home.thumbnails] for k in commands})
    return {"tools": {k: {**v, "command": b.show(commands[k])} for k, v in tools.items()}, "steal": steal}


def run(b):
    jpegs, mp4s = fixtures.photos(b), fixtures.videos(b)
    n = os.cpu_count() or 1
    runs = b.options.thumb_runs
    out = {"nproc": n, "photo_bytes": sum(os.path.getsize(p) for p in jpegs) // len(jpegs)}
    with pickenv.private_home(b) as home:
        vips1, vipsn, ffn, ff1 = (b.path(d) for d in ("out-vips1", "out-vipsn", "out-ffn", "out-ff1"))
        for d in (vips1, vipsn, ffn, ff1):
            os.makedirs(d, exist_ok=True)
        jpeg_list = listing(b, "jpegs.list", jpegs)
        per = math.ceil(len(jpegs) / n)
        # Same PNG compression as gpick's cache files (3; vipsthumbnail's default is 6).
        png = "%s.png[compression=3]"
        photo_dir = b.show(os.path.dirname(jpegs[0]))
        out["photos"] = batch(b, home, "l4", jpegs, {
            "vips": {"argv": ["vipsthumbnail", "-s", "256", "-o", f"{vips1}/{png}", *jpegs], "out": vips1,
                     "shown": f"vipsthumbnail -s 256 -o 'bench/work/out/{png}' {photo_dir}/*.jpg"},
            "vips_parallel": {"argv": ["xargs", "-a", jpeg_list, "-P", n, "-n", per, "vipsthumbnail", "-s", "256", "-o",
                                       f"{vipsn}/{png}"], "out": vipsn,
                              "shown": f"xargs -a LIST -P {n} -n {per} vipsthumbnail -s 256 -o 'bench/work/out/{png}'"},
        }, runs)
        # The batch's last runs left both tools' thumbnails in place.
        out["photos"]["faithfulness"] = faithfulness(b, home, jpegs[:fixtures.PHOTOS["distinct"]], vips1)
        video_dir = os.path.dirname(mp4s[0])
        mp4_list = listing(b, "mp4s.list", mp4s, basenames=True)
        ff = ["ffmpegthumbnailer", "-s", "256", "-t", "33%", "-i", f"{video_dir}/{{}}"]
        out["videos"] = batch(b, home, "l5", mp4s, {
            "ffmpegthumbnailer": {"argv": ["xargs", "-a", mp4_list, "-P", n, "-I{}", *ff, "-o", f"{ffn}/{{}}.png"], "out": ffn,
                                  "shown": f"xargs -a LIST -P {n} -I{{}} ffmpegthumbnailer -s 256 -t 33% "
                                           f"-i {b.show(video_dir)}/{{}} -o bench/work/out/{{}}.png"},
            "ffmpegthumbnailer_serial": {"argv": ["xargs", "-a", mp4_list, "-P", 1, "-I{}", *ff, "-o", f"{ff1}/{{}}.png"],
                                         "out": ff1, "shown": "the same with -P 1 (one file after the other)"},
        }, runs)
        b.log("thumbs: one file per process, for comparison")
        one = b.path("one.png")
        out["single"] = {
            "photo": single(b, home, {"gpick": [b.gpick, "thumb", jpegs[0], "--size", "256", "-o", one],
                                      "vips": ["vipsthumbnail", "-s", "256", "-o", f"{vips1}/{png}", jpegs[0]]}, "one-jpeg"),
            "video": single(b, home, {"gpick": [b.gpick, "thumb", mp4s[0], "--size", "256", "-o", one],
                                      "ffmpegthumbnailer": ["ffmpegthumbnailer", "-s", "256", "-t", "33%", "-i", mp4s[0],
                                                            "-o", one]}, "one-mp4"),
        }
    return out
