"""7. The media library: L1 a cold scan of a generated tree against exiftool -fast2 reading the
same fields (and whether every Apple pair and Motion Photo was found, none invented), L2 a rescan
of the unchanged tree against find, L3 the picker's query (the newest 1000 of 100,000 assets)
timed in-process by gpick-libbench.

Both L1 tools run once untimed first, so the page cache holds the tree for both; a cold scan is
a scan with no index (hyperfine deletes it before each run)."""
import hashlib
import json
import os
import shutil

from .. import fixtures, machine, measure, pick, pickenv
from ..measure import BenchError

L3_ASSETS = 100_000


def timed(b, commands, runs, warmup, name, prepare=None, timeout_each=120):
    """hyperfine over `commands`, with the host's steal share while it ran."""
    before = machine.cpu_ticks()
    got = measure.hyperfine(commands, runs=runs, warmup=warmup, export=b.path(f"{name}.json"), log=b.path(f"{name}.log"),
                            prepare=prepare, timeout_each=timeout_each)
    steal = machine.steal_share(before, machine.cpu_ticks())
    return {k: {"times": v["times"], "cpu": v["user"] + v["system"], "command": b.show(commands[k])}
            for k, v in got.items()}, steal


def scan_cold(b, home, root, manifest, runs, exiftool_runs):
    scan = [b.gpick, "library", "scan", "--library", root]
    exiftool = ["exiftool", "-config", os.path.join(os.path.dirname(root), "gpick.config"), "-fast2", "-json", "-r", "-n",
                "-q", "-q", *(f"-{t}" for t in pick.EXIFTOOL_TAGS), root]
    # Untimed first runs: the page cache then holds the tree for both tools; their outputs are
    # what the checks read.
    b.log("library: L1 untimed first runs (page cache warm for both tools)")
    home.clear_index()
    first_gpick = measure.run(scan + ["--json"], timeout=600, log=b.path("scan.err"), stdout=b.path("scan-first.json"))
    first_exiftool = measure.run(exiftool, timeout=1800, log=b.path("exiftool.err"), stdout=b.path("exiftool.json"))
    with open(b.path("exiftool.json")) as f:
        fields = pick.exiftool_fields(json.load(f))
    rm = ["rm", "-f", *home.index_files]
    b.log(f"library: L1 cold scans, {runs} gpick runs and {exiftool_runs} exiftool run(s) (hyperfine)")
    gpick, steal_g = timed(b, {"gpick": scan}, runs, 0, "scan-cold", prepare={"gpick": rm})
    exif, steal_e = timed(b, {"exiftool": exiftool}, exiftool_runs, 0, "exiftool", timeout_each=600)
    # The index the last cold scan left: what it found.
    with open(b.path("scan-first.json")) as f:
        first = pick.finished(f.read())
    measure.run([b.gpick, "library", "list", "--library", root, "--json", "--limit", "1000000"], timeout=300,
                log=b.path("list.err"), stdout=b.path("list.json"))
    measure.run([b.gpick, "library", "list", "--library", root, "--kind", "live", "--json", "--limit", "100000"],
                timeout=300, log=b.path("list.err"), stdout=b.path("live.json"))
    with open(b.path("list.json")) as f:
        listed = pick.records(f.read())
    with open(b.path("live.json")) as f:
        live_listed = len(pick.records(f.read()))
    return {"tools": {**gpick, **exif}, "steal": {"gpick": steal_g, "exiftool": steal_e},
            "first_runs": {"gpick": first_gpick.wall, "exiftool": first_exiftool.wall},
            "exiftool_fields": fields, "first_scan": first,
            "census": {**pick.census(manifest, listed, first), "kind_live_listed": live_listed},
            "list_command": b.show([b.gpick, "library", "list", "--kind", "live", "--json", "--limit", "100000"])}


def rescan(b, root, runs):
    scan = [b.gpick, "library", "scan", "--library", root]
    find = ["find", root, "-printf", "%i %s %T@\\n"]
    b.log(f"library: L2 rescans of the unchanged tree, {runs} runs each (hyperfine)")
    tools, steal = timed(b, {"gpick": scan, "find": find}, runs, 2, "rescan")
    measure.run(scan + ["--json"], timeout=300, log=b.path("scan.err"), stdout=b.path("rescan.json"))
    with open(b.path("rescan.json")) as f:
        summary = pick.finished(f.read())
    return {"tools": tools, "steal": steal, "summary": {k: summary.get(k) for k in ("found", "added", "updated", "removed",
                                                                                   "unchanged", "moved")}}


def newest(b, runs):
    exe = b.path("gpick-libbench")
    if not os.path.exists(exe):
        raise BenchError("library: no gpick-libbench beside gpick (bench/run.sh builds it; see --gpick)")
    source = os.path.join(b.root, "bench/libbench/main.swift")
    with open(source) as f:
        params = {"assets": L3_ASSETS, "source": hashlib.sha256(f.read().encode()).hexdigest()}
    folder = fixtures.cached(b, "l3-index", params, lambda d: measure.run(
        [exe, "fill", os.path.join(d, "library.sqlite"), L3_ASSETS], timeout=600, log=os.path.join(d, "fill.log")))
    # A copy to query: opening the index (WAL) writes beside it, the cached one stays as made.
    index = b.path("l3", "library.sqlite")
    os.makedirs(os.path.dirname(index), exist_ok=True)
    shutil.copyfile(os.path.join(folder, "library.sqlite"), index)
    b.log(f"library: L3 newest 1000 of {L3_ASSETS} assets in-process, {runs} runs after 5 warm-up")
    before = machine.cpu_ticks()
    measure.run([exe, "list", index, "--runs", runs, "--warmup", 5], timeout=900, log=b.path("libbench.err"),
                stdout=b.path("libbench.json"))
    steal = machine.steal_share(before, machine.cpu_ticks())
    with open(b.path("libbench.json")) as f:
        result = pick.libbench(json.load(f))
    return {**result, "steal": steal, "command": f"{b.gpick_shown.rsplit('/', 1)[0]}/gpick-libbench list INDEX --runs {runs} --warmup 5"}


def run(b):
    root, manifest = fixtures.tree(b)
    with pickenv.private_home(b) as home:
        out = {"tree": {k: manifest[k] for k in ("files", "photos", "videos", "live", "traps")},
               "root": b.show(root),
               "cold": scan_cold(b, home, root, manifest, b.options.library_runs, b.options.exiftool_runs),
               "rescan": rescan(b, root, b.options.library_runs * 2)}
    out["newest"] = newest(b, b.options.libbench_runs)
    return out
