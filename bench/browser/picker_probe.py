#!/usr/bin/python3
"""Times gpick's picker page in a real headless Chromium (Debian's python3-selenium and
chromium-driver), for bench/gpickbench's picker section (K1-K3, K5). Every time is the page's own
clock (performance.now(), 0 at navigation start), read by a requestAnimationFrame loop that is in
the page before its first script runs: a picture counts once it is decoded and in the DOM.

Usage: picker_probe.py URL STEP [ARG]; prints one JSON object.
  grid N      navigation start → the first N grid thumbnails painted (the browser's cache off)
  camera      navigation start → the camera cell's first frame; then `snap` three times:
              click → the capture's thumbnail painted at the head of the grid
  scroll N    scrolls the grid down a screen at a time until N thumbnails have been painted
  rest PID S  the live camera cell, then scrolled out of view until it rests, then back: the CPU
              time of process PID (the picker) over S seconds live and S seconds resting, and the
              wake-up on the page's clock (scroll back → the first live frame painted)

The page is opened once the freshly started browser is idle (`settle`), as in a browser that was
already running: Chromium 156 spends about a second of its start preloading its own UI pages
(a "WebUI Top Renderer"), which took 1.5 of the 2 cores while the page loaded and added about 50 ms
to K1's median on this machine. STARTED=1 in the environment opens it at once instead, for comparison.
"""
import json
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

WATCH = """
window.__marks = {};
(function loop() {
  const imgs = document.querySelectorAll('#grid .item img');
  let n = 0;
  for (const i of imgs) if (i.complete && i.naturalWidth > 0) n++;
  window.__painted = n;
  if (!window.__marks.grid && n >= %d) window.__marks.grid = performance.now();
  const cam = document.getElementById('camera-view');
  if (cam && cam.naturalWidth > 0 && !window.__marks.camera) window.__marks.camera = performance.now();
  requestAnimationFrame(loop);
})();
"""

SNAP = """
const done = arguments[arguments.length - 1];
const before = new Set(Array.from(document.querySelectorAll('#grid .item')).map(c => c.dataset.id));
const t0 = performance.now();
document.getElementById('camera-view').click();
(function loop() {
  const c = Array.from(document.querySelectorAll('#grid .item')).find(c => !before.has(c.dataset.id));
  const i = c && c.querySelector('img');
  if (i && i.complete && i.naturalWidth > 0) done(performance.now() - t0);
  else if (performance.now() - t0 > 10000) done(-1);
  else requestAnimationFrame(loop);
})();
"""


# Scroll back, then watch every animation frame: when the cell is in view with a picture (the
# blurred last frame), when the page hears the camera is live, and when the picture first changes
# after that (the first live frame painted: the test source's stamp changes with every frame).
WAKE = """
const done = arguments[arguments.length - 1];
const img = document.getElementById('camera-view');
const canvas = document.createElement('canvas');
canvas.width = 64; canvas.height = 48;
const g = canvas.getContext('2d', {willReadFrequently: true});
function picture() {
  g.drawImage(img, 0, 0, 64, 48);
  const d = g.getImageData(0, 0, 64, 48).data;
  let h = 0;
  for (let i = 0; i < d.length; i += 4) h = (h * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2]) >>> 0;
  return h;
}
const resting = picture();
const t0 = performance.now();
document.querySelector('main').scrollTop = 0;
let frames = 0, shown = -1, live = -1;
(function loop() {
  frames++;
  const r = document.getElementById('camera').getBoundingClientRect();
  if (shown < 0 && r.bottom > 0 && r.top < innerHeight && img.naturalWidth > 0) shown = frames;
  if (live < 0 && camera.state === 'live') live = performance.now() - t0;
  if (live >= 0 && picture() !== resting) {
    done({live_state_ms: live, first_frame_ms: performance.now() - t0, blurred_shown_frames: shown});
  } else if (performance.now() - t0 > 10000) {
    done({error: 'no live frame within 10 s', live_state_ms: live, blurred_shown_frames: shown});
  } else requestAnimationFrame(loop);
})();
"""

STATE = "return (typeof camera !== 'undefined' && camera) ? camera.state : null"


def stat(pid):
    """(parent pid, CPU ticks: utime + stime of all its threads) of process pid, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return int(fields[1]), int(fields[11]) + int(fields[12])


def cpu_percent(pid, seconds):
    """Process pid's CPU time (all its threads) over `seconds`, in % of one core."""
    t0, c0 = time.monotonic(), stat(pid)[1]
    time.sleep(seconds)
    t1, c1 = time.monotonic(), stat(pid)[1]
    return 100.0 * (c1 - c0) / os.sysconf("SC_CLK_TCK") / (t1 - t0)


def rest(driver, pid, seconds):
    until(driver, "return window.__marks.camera && camera && camera.state === 'live'")
    out = {"live_cpu_percent": cpu_percent(pid, seconds)}
    started = time.monotonic()
    driver.execute_script("const m = document.querySelector('main'); m.scrollTop = m.scrollHeight;")
    until(driver, STATE.replace("camera.state :", "camera.state === 'suspended' :"), 10)
    out["rested_ms"] = (time.monotonic() - started) * 1000
    out["rest_cpu_percent"] = cpu_percent(pid, seconds)
    out.update(driver.execute_async_script(WAKE))
    if "error" in out:
        raise TimeoutError(out["error"])
    return out


def browser(want):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1000", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH % want})
    driver.set_script_timeout(30)
    return driver


def process_tree_ticks(root):
    """CPU ticks (utime + stime) of every process under `root` (not root itself)."""
    children, ticks = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            parent, ticks[int(entry)] = stat(entry)
        except OSError:
            continue  # gone meanwhile
        children.setdefault(parent, []).append(int(entry))
    total, todo = 0, list(children.get(root, []))
    while todo:
        pid = todo.pop()
        total += ticks.get(pid, 0)
        todo += children.get(pid, [])
    return total


def settle(driver, window=0.25, busy=0.08, limit=10.0):
    """Waits until the browser's processes (everything under chromedriver) used under `busy` of one
    core over a `window` of seconds, `limit` seconds at most. Returns (seconds waited, settled)."""
    hz = os.sysconf("SC_CLK_TCK")
    started = time.monotonic()
    before = process_tree_ticks(driver.service.process.pid)
    while time.monotonic() - started < limit:
        time.sleep(window)
        now = process_tree_ticks(driver.service.process.pid)
        if (now - before) / hz <= busy * window:
            return time.monotonic() - started, True
        before = now
    return time.monotonic() - started, False


def until(driver, script, seconds=60):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = driver.execute_script(script)
        if value is not None and value is not False:
            return value
        time.sleep(0.02)
    raise TimeoutError(f"no answer to {script!r} in {seconds} s")


def main():
    url, step, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    want = int(args[0]) if args else 24
    driver = browser(want if step == "grid" else 10**9)
    out = {}
    try:
        if os.environ.get("STARTED") != "1":
            out["settle_s"], out["settled"] = settle(driver)
        driver.get(url)
        if step == "grid":
            out["ms"] = until(driver, "return window.__marks.grid")
            out["painted"] = driver.execute_script("return window.__painted")
        elif step == "camera":
            out["ms"] = until(driver, "return window.__marks.camera")
            out["snaps"] = [driver.execute_async_script(SNAP) for _ in range(3)]
        elif step == "scroll":
            started = time.monotonic()
            while driver.execute_script("return window.__painted") < want:
                before = driver.execute_script("return window.__painted")
                # The grid scrolls inside <main>, not the window.
                driver.execute_script("const m = document.querySelector('main'); m.scrollBy(0, m.clientHeight)")
                # The new screenful's thumbnails come in (made on first sight when not cached).
                end = time.monotonic() + 60
                while time.monotonic() < end:
                    time.sleep(0.1)
                    now = driver.execute_script("return window.__painted")
                    visible = driver.execute_script(
                        "return Array.from(document.querySelectorAll('#grid .item img')).filter(i => {"
                        " const r = i.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight"
                        " && !(i.complete && i.naturalWidth > 0); }).length")
                    if now > before and visible == 0:
                        break
                if driver.execute_script("return window.__painted") == before:
                    raise TimeoutError(f"scrolling stopped at {before} thumbnails")
            out["painted"] = driver.execute_script("return window.__painted")
            out["seconds"] = time.monotonic() - started
        elif step == "rest":
            out.update(rest(driver, int(args[0]), float(args[1])))
        else:
            raise SystemExit("unknown step " + step)
        out["ok"] = True
    except Exception as e:
        out["ok"] = False
        out["error"] = f"{type(e).__name__}: {e}"
    finally:
        driver.quit()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
