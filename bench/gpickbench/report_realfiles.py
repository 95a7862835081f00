"""The real files' section of bench/RESULTS.md (R1-R3 on the corpus, E1). Pure: results in, markdown out."""
from . import targets as T


def verdict(ok):
    return "not run" if ok is None else "**PASS**" if ok else "**FAIL**"


def spread(name, times, cpu, extra=""):
    s = sorted(times)
    return f"| {name} | {T.median(s):.3f} | {s[0]:.3f} | {s[-1]:.3f} | {len(s)} | {cpu:.2f} |{extra}"


def shape(x):
    return x or "none"


def scanned(f):
    g = f["gpick"]
    if not g["listed"]:
        return "not listed"
    size = f"{g['width']}x{g['height']}" if g.get("width") else "no size"
    return f"{g['kind']}, {size}" + (f" ({', '.join(g['subtypes'])})" if g["subtypes"] else "")


def failures(label, x):
    """A tool's exit status and the end of its stderr when it said that something failed."""
    if not x.get("exit"):
        return []
    return [f"- {label} exited {x['exit']}; the end of its stderr:", "```", x["stderr"] or "(nothing)", "```"]


def realfiles(r, c):
    rows = [x for x in c.values() if x.ref in ("R1", "R2", "R3", "E1")]
    r1, wall, cpu, r3 = (x for x in rows if x.ref != "E1")
    e1 = next(x for x in rows if x.ref == "E1")
    lines = ["## 8b. Real files from phones and cameras (R1–R3), and writing EXIF (E1)", ""]
    if not r["ran"]:
        corpus = r.get("corpus")
        why = (f"no file in {corpus['folder']} has its manifest SHA-256" if corpus else
               f"none of {', '.join(f'`{d}`' for d in r['looked_in'])} holds the corpus (its README.md)")
        lines += [f"The corpus of real files ($GPICK_REAL_FILES, else ../shared/real-files beside the checkout) is absent: "
                  f"{why}. R1–R3 were **not run** (neither met nor missed); E1 needs no corpus. The corpus is "
                  f"{len(r['manifest'])} files, by Tests/Support/RealFiles.swift: {', '.join(r['manifest'])}."]
    else:
        corpus, i, t = r["corpus"], r["index"], r["thumbs"]
        g, v, one = t["tools"]["gpick"], t["tools"]["vips_parallel"], t["vips_single"]
        files = corpus["files"]
        lines += [f"The corpus the tests use (Tests/Support/RealFiles.swift), from `{corpus['folder']}`: {len(files)} files "
                  f"of {len(r['manifest'])}, each checked against its SHA-256 and copied into one folder of their own "
                  "(bench/work/corpus), which both tools of each row read."
                  + (f" Absent or different, so left out: {', '.join(corpus['missing'])}." if corpus["missing"] else ""), "",
                  "| file | bytes | exiftool: MIME, pixels as stored | gpick scan: kind, pixels as shown | gpick thumbnail | "
                  f"vipsthumbnail, {t['nproc']} at a time | vipsthumbnail, one process |", "|---|---|---|---|---|---|---|"]
        for name, size in files.items():
            f, e = i["files"][name], i["files"][name]["exiftool"]
            seen = (f"{e['mime']}, {e['width']}x{e['height']}" if e["width"] else f"{e['mime']}") if e["printed"] else "not printed"
            lines.append(f"| {name} | {size:,} | {seen} | {scanned(f)} | {shape(g['outputs'][name])} | "
                         f"{shape(v['outputs'][name])} | {shape(one['outputs'][name])} |")
        s = i["first_scan"]
        lines += ["", "### R1: indexing it, a cold scan against exiftool reading the same fields", "",
                  "Page cache warm for both: each tool ran once untimed first (what the table above says comes from those "
                  "runs). hyperfine, no shell; gpick's $XDG_DATA_HOME/gpick (its index) is deleted before each run, in a "
                  "private HOME/XDG folder (bench/work/home). exiftool reads the fields gpick's scan reads (L1's command).", "",
                  "| tool | median s | min | max | runs | CPU s (mean) |", "|---|---|---|---|---|---|",
                  spread("gpick library scan", i["tools"]["gpick"]["times"], i["tools"]["gpick"]["cpu"]),
                  spread("exiftool -fast2 -json -r", i["tools"]["exiftool"]["times"], i["tools"]["exiftool"]["cpu"]),
                  "", "```", i["tools"]["gpick"]["command"], i["tools"]["exiftool"]["command"], "```", "",
                  f"- Ratio gpick / exiftool (medians): **{r1.result}** — target {r1.target}: {verdict(r1.ok)} (host steal "
                  f"{i['steal']['gpick']:.1f} % during gpick's runs, {i['steal']['exiftool']:.1f} % during exiftool's; the "
                  f"untimed first runs took {i['first_runs']['gpick']:.3f} s and {i['first_runs']['exiftool']:.3f} s)",
                  "- gpick's scan said: " + ", ".join(f"{k} {x}" for k, x in s.items())
                  + f"; exiftool printed {i['exiftool_fields']['files']} files, a size for {i['exiftool_fields']['size']}, "
                  f"a date for {i['exiftool_fields']['date']}, MotionPhoto for {i['exiftool_fields']['motion_photo']}",
                  *failures("gpick library scan", {"exit": i["exit"]["gpick"], "stderr": i["stderr"]["gpick"]}),
                  *failures("exiftool", {"exit": i["exit"]["exiftool"], "stderr": i["stderr"]["exiftool"]}), "",
                  "### R2, R3: thumbnailing it, 256 px PNGs, and the memory that takes", "",
                  "Whole batches, all the corpus's files for both tools (hyperfine, no shell, one warm-up run each, outputs "
                  "deleted before every run; a run that fails on some files still counts, its status said so). gpick makes "
                  "the freedesktop.org `large` thumbnails in one process; vipsthumbnail thumbnails one file per process, "
                  f"{t['nproc']} processes side by side (xargs -P {t['nproc']} -n 1), PNG at gpick's compression level (3); it "
                  "thumbnails whatever libvips reads of a file (of the DNG, not the sensor data; neither does gpick). CPU: "
                  "user + sys of the whole tree (xargs's children included). Peak RSS and the thumbnails written: one more "
                  "run each from wait4 (gpick's with `--json`, which names each file's thumbnail); R3's reference is one "
                  "vipsthumbnail process given all the files, one after the other.", "",
                  "| tool | median s | min | max | runs | CPU s (mean) | peak RSS MiB | thumbnails | exit |",
                  "|---|---|---|---|---|---|---|---|---|",
                  spread("gpick library thumbs (one process)", g["times"], g["cpu"],
                         f" {g['maxrss_kib'] / 1024:.0f} | {T.thumbs_made(g['outputs'])} | {g['exit']} |"),
                  spread(f"vipsthumbnail, {t['nproc']} processes side by side", v["times"], v["cpu"],
                         f" {v['maxrss_kib'] / 1024:.0f} (xargs and its children) | {T.thumbs_made(v['outputs'])} | {v['exit']} |"),
                  f"| vipsthumbnail, one process for all files (R3; one run) | {one['wall']:.3f} | | | 1 | "
                  f"{one['user'] + one['sys']:.2f} | {one['maxrss_kib'] / 1024:.0f} | {T.thumbs_made(one['outputs'])} | "
                  f"{one['exit']} |",
                  "", "```", g["command"], v["command"], one["command"], "```", "",
                  f"- Wall time gpick / vipsthumbnail {t['nproc']} at a time (medians): **{wall.result}** — target "
                  f"{wall.target}: {verdict(wall.ok)}",
                  f"- CPU time gpick / the same (means): **{cpu.result}** — target {cpu.target}: {verdict(cpu.ok)} (host "
                  f"steal {t['steal']:.1f} %)",
                  f"- gpick's peak RSS: **{r3.result}** — target {r3.target}: {verdict(r3.ok)}",
                  *failures("gpick library thumbs", g), *failures(f"xargs -P {t['nproc']} vipsthumbnail", v),
                  *failures("vipsthumbnail, one process", one)]
    e = r["exif"]
    x = e["insert"]
    return lines + [
        "", "### E1: writing a still's EXIF, in-process", "",
        f"gpick-imagebench (bench/imagebench, linking GpickFormats) times what `snap` adds to a JPEG it has encoded: "
        f"`StillExif(camera:software:takenAt: StillExif.now(), width: 1920, height: 1080)` made and `.insert(into:)` the "
        f"JPEG's bytes (read once beforehand; a 1920×1080 frame from jpegenc, {e['jpeg_bytes']:,} bytes), from the call to "
        f"the new bytes, {e['runs']} times after {e['warmup']} warm-up.", "", "```", e["jpeg_command"], e["command"], "```", "",
        "| call | median ms | p90 | min | max |", "|---|---|---|---|---|",
        f"| `StillExif(...).insert(into:)` | {x['median_ms']:.3f} | {x['p90_ms']:.3f} | {x['min_ms']:.3f} | {x['max_ms']:.3f} |", "",
        f"- **{e1.result}** — target {e1.target}: {verdict(e1.ok)} (the APP1 adds {e['exif_bytes']} bytes, "
        f"{'right after SOI/APP0' if e['exif_placed'] else 'NOT where it belongs'}; host steal {e['steal']:.1f} %)", ""]
