"""11. Avatars (A1-A3): a 500 px profile image of "Ada Lovelace" — the initials "AL" on a vertical
gradient, cut to a circle. A1: gpick-avatarbench renders it in-process (and encodes it as PNG, shown
beside). A2: `gpick avatar` as a whole process against rsvg-convert drawing the same picture from an
SVG (the gradient, a circle clipPath, "AL" in DejaVu Sans Bold), both writing a PNG, timed by
hyperfine in one run. A3: `gpick avatar edit` in headless Chromium: a colour changed → the new
preview shown (bench/browser/avatar_probe.py, the page's own clock)."""
import json
import os
import subprocess
import threading
from xml.sax.saxutils import escape, quoteattr

from .. import machine, measure, pick
from ..measure import BenchError

TEXT, SHOWN, SIZE, SHAPE = "Ada Lovelace", "AL", 500, "circle"
GRADIENT = ("#83b6ec", "#337fdc")   # top, bottom
FONT = "DejaVu Sans"                # what Pango picks for gpick's sans-serif here (fonts-dejavu-core)
FONT_EM = 0.4                       # gpick's preferred text height, of the side
CAP_HEIGHT = 1493 / 2048            # DejaVu Sans Bold's capital height, of the em
WARMUP = 3


def svg(size=SIZE, gradient=GRADIENT, text=SHOWN, font=FONT):
    """rsvg-convert's side of A2: the gradient top to bottom, clipped to the inscribed circle, the
    text bold and white, centred. The baseline is placed by hand (half the capital height below the
    centre): rsvg-convert 2.54 ignores dominant-baseline, so `central` would leave the text high."""
    c, font_px = size / 2, FONT_EM * size
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">'
            '<defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1">'
            f'<stop offset="0" stop-color="{gradient[0]}"/><stop offset="1" stop-color="{gradient[1]}"/></linearGradient>'
            f'<clipPath id="c"><circle cx="{c:g}" cy="{c:g}" r="{c:g}"/></clipPath></defs>'
            f'<g clip-path="url(#c)"><rect width="{size}" height="{size}" fill="url(#g)"/>'
            f'<text x="{c:g}" y="{c + CAP_HEIGHT * font_px / 2:.1f}" font-family={quoteattr(font)} font-weight="bold" '
            f'font-size="{font_px:g}" fill="#ffffff" text-anchor="middle">{escape(text)}</text></g></svg>\n')


def png(path):
    with open(path, "rb") as f:
        size = pick.png_size(f.read(24))
    return {"width": size[0] if size else 0, "height": size[1] if size else 0, "bytes": os.path.getsize(path)}


def inprocess(b, exe):
    runs = b.options.avatar_renders
    b.log(f"avatar: A1 render of a {SIZE} px initials avatar in-process, {runs} runs after 20 warm-up")
    before = machine.cpu_ticks()
    measure.run([exe, "--runs", runs, "--warmup", 20], timeout=600, log=b.path("avatarbench.err"),
                stdout=b.path("avatarbench.json"))
    steal = machine.steal_share(before, machine.cpu_ticks())
    with open(b.path("avatarbench.json")) as f:
        result = json.load(f)
    return {**result, "shown_expected": SHOWN, "steal": steal,
            "command": f"{b.gpick_shown.rsplit('/', 1)[0]}/gpick-avatarbench --runs {runs} --warmup 20"}


def whole_process(b):
    runs = b.options.avatar_runs
    drawing = b.path("avatar.svg")
    with open(drawing, "w") as f:
        f.write(svg())
    outputs = {"gpick": b.path("avatar-gpick.png"), "rsvg": b.path("avatar-rsvg.png")}
    commands = {
        "gpick": [b.gpick, "avatar", "-o", outputs["gpick"], "--text", TEXT, "--gradient", ",".join(GRADIENT),
                  "--shape", SHAPE, "--size", SIZE],
        "rsvg": ["rsvg-convert", "-o", outputs["rsvg"], drawing],
    }
    b.log(f"avatar: A2 gpick avatar against rsvg-convert, {runs} runs each after {WARMUP} warm-up (hyperfine)")
    before = machine.cpu_ticks()
    got = measure.hyperfine(commands, runs=runs, warmup=WARMUP, export=b.path("avatar-cli.json"), log=b.path("avatar-cli.log"))
    steal = machine.steal_share(before, machine.cpu_ticks())
    tools = {k: {"times": v["times"], "cpu": v["user"] + v["system"], "command": b.show(commands[k]),
                 "output": png(outputs[k])} for k, v in got.items()}
    return {"runs": runs, "warmup": WARMUP, "size": SIZE, "tools": tools, "steal": steal, "svg": svg()}


EDITOR_CHANGES = 30
PROBE = "bench/browser/avatar_probe.py"


def editor(b):
    """A3: the editor's page in Chromium; the top colour changed EDITOR_CHANGES times (after two not
    counted), each timed from the input event to the new preview painted. The probe cancels at the end."""
    command = [b.gpick, "avatar", "edit", "--no-open", "-o", b.path("avatar-edit.png"), "--text", TEXT, "--source", "test"]
    b.log(f"avatar: A3 the editor's preview after a change, {EDITOR_CHANGES} changes in headless Chromium")
    log = open(b.path("avatar-edit.log"), "w")
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "DISPLAY": ""})
    try:
        line = process.stderr.readline()
        log.write(line)
        if "token=" not in line:
            raise BenchError(f"avatar: gpick avatar edit printed no URL: {line.strip()}")
        # Whatever else it says goes to the log, so a full pipe never stalls it.
        threading.Thread(target=lambda: log.writelines(process.stderr), daemon=True).start()
        answer = json.loads(measure.output(["/usr/bin/python3", os.path.join(b.root, PROBE), line.split()[-1], EDITOR_CHANGES],
                                           timeout=300))
        if not answer.get("ok"):
            raise BenchError(f"avatar: the editor's page failed: {answer.get('error')}")
        status = process.wait(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        log.close()
    return {"ms": answer["ms"], "changes": EDITOR_CHANGES, "exit": status, "command": b.show(command)}


def run(b):
    exe = b.path("gpick-avatarbench")
    if not os.path.exists(exe):
        raise BenchError("avatar: no gpick-avatarbench beside gpick (bench/run.sh builds it; see --gpick)")
    return {"render": inprocess(b, exe), "cli": whole_process(b), "editor": editor(b)}
