#!/usr/bin/python3
"""Checks how one of gpick's pages (the picker or the avatar editor) looks, in a real headless
Chromium: accessibility with Deque's axe-core, and pixels of a screenshot. For the Swift tests.
Usage: page_checks.py URL SCHEME STEP...; SCHEME is what the browser says the system prefers
(light, dark, or none to leave it alone). Prints one JSON object.

Steps (run in order, on one page):
  axe                 runs axe-core: every violation's id, impact, targets and help
  shot:PATH           saves a screenshot (PNG) to PATH
  pixels              the screenshot's colour at a few places: the header's top edge, the page
                      behind the grid (main's padding), the focused cell's left edge, the Choose
                      button, the camera cell's left edge and a fifth of the way in; with the
                      elements' boxes and computed colours
  select              clicks the first item cell (the picker), then waits for it to be selected
  keys:KEY,KEY...     presses each key (ArrowRight, ...) on the picker; after each, the index of the
                      cell that has the page's focus, and how many cells are in the tab order
"""
import json
import os
import sys

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

# Waits are hang bounds, read as the Swift tests read theirs (HangBound): scaled by
# GPICK_TEST_HANG_SCALE on a slower machine.
HANG_SCALE = max(1.0, float(os.environ.get("GPICK_TEST_HANG_SCALE") or 1))


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1000,800", "--force-device-scale-factor=1", "--no-first-run",
                "--disable-extensions", "--hide-scrollbars"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, condition, seconds=30):
    return WebDriverWait(driver, seconds * HANG_SCALE, poll_frequency=0.05).until(lambda d: condition(d))


# Ready to be judged: the picker's grid built and its first thumbnails in (or failed), the
# editor's first preview shown.
READY = """
if (document.getElementById('preview')) {
  const i = document.getElementById('preview');
  return !!(i.complete && i.naturalWidth && window.gpickPreviewIdle === true);
}
if (document.body.dataset.ready !== '1') return false;
const imgs = Array.from(document.querySelectorAll('#grid .cell.item img')).filter(i => i.src);
// A camera cell shows its first frame before the page is looked at.
const cam = document.querySelector('#grid .cell.camera') && document.getElementById('camera-view');
return imgs.every(i => i.complete) && (!cam || (cam.complete && cam.naturalWidth > 0));
"""

# Boxes and computed colours of what `pixels` samples.
BOXES = """
const box = sel => { const e = document.querySelector(sel); if (!e) return null;
  const r = e.getBoundingClientRect(), s = getComputedStyle(e);
  return {x: r.left, y: r.top, w: r.width, h: r.height, color: s.color, background: s.backgroundColor}; };
return {header: box('header'), main: box('main'), focused: box('.cell.focused'), confirm: box('#confirm'),
        camera: box('.cell.camera'), cameraImage: box('#camera-view'), close: box('#close'),
        cameraNatural: (() => { const i = document.getElementById('camera-view');
          return i && i.naturalWidth ? [i.naturalWidth, i.naturalHeight] : null; })()};
"""

# The screenshot's pixels at `points`, decoded by the page itself (no image library needed here).
SAMPLE = """
const [png, points, done] = arguments;
const bytes = Uint8Array.from(atob(png), c => c.charCodeAt(0));
createImageBitmap(new Blob([bytes], {type: 'image/png'})).then(bitmap => {
  const c = document.createElement('canvas'); c.width = bitmap.width; c.height = bitmap.height;
  const g = c.getContext('2d'); g.drawImage(bitmap, 0, 0);
  const out = {};
  for (const [name, x, y] of points) {
    const d = g.getImageData(Math.round(x), Math.round(y), 1, 1).data;
    out[name] = [d[0], d[1], d[2]];
  }
  done(out);
}).catch(e => done({error: String(e)}));
"""


def pixels(driver):
    boxes = driver.execute_script(BOXES)
    points = []
    if boxes["header"]:
        h = boxes["header"]
        points.append(("header", h["x"] + h["w"] / 2, h["y"] + 2))
    if boxes["main"]:
        m = boxes["main"]
        points.append(("page", m["x"] + 2, m["y"] + m["h"] - 3))
    if boxes["focused"]:
        f = boxes["focused"]
        points.append(("focus-ring", f["x"] + 1, f["y"] + f["h"] / 2))
    if boxes["confirm"]:
        b = boxes["confirm"]
        points.append(("confirm", b["x"] + 3, b["y"] + b["h"] / 2))
    if boxes["camera"]:
        c = boxes["camera"]
        points.append(("camera-edge", c["x"] + 8, c["y"] + c["h"] / 2))  # inside the focus ring
        points.append(("camera-inside", c["x"] + c["w"] / 5, c["y"] + c["h"] / 2))
    png = driver.get_screenshot_as_base64()
    return {"boxes": boxes, "pixels": driver.execute_async_script(SAMPLE, png, points)}


def session(driver, argv):
    """Runs one page's steps in the driver's current tab; the answer that main prints."""
    url, scheme, steps = argv[0], argv[1], argv[2:]
    out = {"steps": []}
    try:
        if scheme in ("light", "dark"):
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                   {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        driver.get(url)
        wait(driver, lambda d: d.execute_script(READY))
        for step in steps:
            name, _, arg = step.partition(":")
            record = {"step": name}
            if name == "axe":
                axe = Axe(driver)
                axe.inject()
                results = axe.run()
                record["violations"] = [
                    {"id": v["id"], "impact": v["impact"], "help": v["help"],
                     "targets": [", ".join(n["target"]) for n in v["nodes"]][:8]}
                    for v in results["violations"]]
                record["passes"] = len(results["passes"])
                record["incomplete"] = [v["id"] for v in results["incomplete"]]
                record["axe"] = driver.execute_script("return axe.version")
            elif name == "shot":
                driver.save_screenshot(arg)
                record["path"] = arg
            elif name == "pixels":
                record.update(pixels(driver))
            elif name == "select":
                driver.find_element(By.CSS_SELECTOR, "#grid .cell.item").click()
                wait(driver, lambda d: d.execute_script(
                    "return document.querySelector('#grid .cell.item').getAttribute('aria-selected') === 'true'"))
            elif name == "keys":
                record["focus"] = []
                for key in arg.split(","):
                    ActionChains(driver).send_keys(getattr(Keys, key.upper().replace("ARROW", "ARROW_"), key)).perform()
                    record["focus"].append(driver.execute_script(
                        "const cells = Array.from(document.querySelectorAll('#grid .cell'));"
                        "return [cells.indexOf(document.activeElement), cells.filter(c => c.tabIndex === 0).length];"))
            else:
                raise SystemExit("unknown step " + step)
            out["steps"].append(record)
        out["ok"] = True
    except Exception as e:  # the test prints it: what the page showed when it went wrong
        out["ok"] = False
        out["error"] = "%s: %s" % (type(e).__name__, e)
    return out


def main():
    driver = browser()
    try:
        out = session(driver, sys.argv[1:])
    finally:
        driver.quit()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
