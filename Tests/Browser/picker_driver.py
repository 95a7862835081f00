#!/usr/bin/python3
"""Drives gpick's picker page in a real headless Chromium (Selenium + chromium-driver), for the
Swift tests. Usage: picker_driver.py URL STEP [ARG...]; prints one JSON object on stdout.

Steps:
  grid                 the cells: ids, badges, labels, selection; waits for the first thumbnails to paint
  all N                waits for N item cells (the page comes with the first 80, fetches the rest)
  snap                 clicks the camera cell; waits for the capture at the head of the grid
  choose ID...         clicks each item (multi), then Choose
  key KEY              presses a key on the page (Escape, q, Enter, ...)
  flip SECONDS         clicks Flip and samples the camera cell's mean luma every ~40 ms
  take                 take-or-pick: clicks "Take photo", waits for the live camera, clicks it
  nocamera             waits for the page to say there is no camera; the cells and that notice
  arrive FILE          nocamera, then writes FILE (the test then plugs a camera in) and waits for the
                       camera cell's first frame; the cells before and after, the focus before and after; then snap
  rest                 scrolls the live camera cell out of view until the page hears it rests, then back
                       until it is live again; how long each took, and the cell's luma while it woke
  toggle ID...         clicks each item in turn (selecting, or deselecting one selected), then waits
                       until the page has told the server
  record [SECONDS]     clicks Rec and waits for the cell to say it records; then clicks Rec again after
                       SECONDS, or without SECONDS waits for the video to stop by itself; then for
                       the video's cell at the head of the grid, painted, and the cell no longer recording;
                       each record step adds {seconds, status} to "videos"
  hide                 opens another tab over the page (document.hidden) until the picker says its
                       camera rests, then comes back to the page until it is live again
"""
import json
import os
import sys
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait

# Waits are hang bounds, read as the Swift tests read theirs (HangBound): scaled by
# GPICK_TEST_HANG_SCALE on a slower machine.
HANG_SCALE = max(1.0, float(os.environ.get("GPICK_TEST_HANG_SCALE") or 1))


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1000,800", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


CELLS = """
return Array.from(document.querySelectorAll('#grid .cell')).map(c => ({
  kind: c.classList.contains('camera') ? 'camera' : c.classList.contains('action') ? 'action' : 'item',
  id: c.dataset.id || null, text: c.classList.contains('action') ? c.textContent : null,
  badges: Array.from(c.querySelectorAll('.badge')).map(b => b.textContent),
  label: c.getAttribute('aria-label'),
  selected: c.classList.contains('selected'),
  painted: (() => { const i = c.querySelector('img'); return !!(i && i.complete && i.naturalWidth > 0); })(),
  unreadable: (() => { const n = c.querySelector('.unreadable-note'); return n ? Array.from(n.children).map(e => e.textContent) : null; })()
}));
"""

# Mean luma of the camera cell's current frame, drawn onto a canvas (same origin: not tainted).
LUMA = """
const img = document.getElementById('camera-view');
if (!img || !img.naturalWidth) return -1;
const c = document.createElement('canvas'); c.width = 64; c.height = 36;
const g = c.getContext('2d'); g.drawImage(img, 0, 0, 64, 36);
const d = g.getImageData(0, 0, 64, 36).data; let sum = 0;
for (let i = 0; i < d.length; i += 4) sum += 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
return sum / (d.length / 4);
"""


def server_state(url):
    """The picker's /api/state, asked by this script (the token from the page's URL)."""
    parts = urllib.parse.urlsplit(url)
    token = urllib.parse.parse_qs(parts.query)["token"][0]
    with urllib.request.urlopen(f"{parts.scheme}://{parts.netloc}/api/state?token={token}", timeout=5) as r:
        return json.load(r)


def wait(driver, condition, seconds=15):
    return WebDriverWait(driver, seconds * HANG_SCALE, poll_frequency=0.05).until(lambda d: condition(d))


def click(driver, by, what):
    """Finds and clicks an element; found again if the page redrew it in between (the grid
    re-renders its cells as state comes in, and a found cell can be gone by the click)."""
    def clicked(d):
        try:
            d.find_element(by, what).click()
            return True
        except StaleElementReferenceException:
            return False
    wait(driver, clicked)


def run_step(driver, url, step, args, out):
    """One step of the page's part, its findings in `out`."""
    if step == "grid":
        want = int(args[0]) if args else 0
        wait(driver, lambda d: sum(1 for c in d.execute_script(CELLS) if c["kind"] == "item" and c["painted"]) >= want)
        out["cells"] = driver.execute_script(CELLS)
    elif step == "all":
        wait(driver, lambda d: sum(1 for c in d.execute_script(CELLS) if c["kind"] == "item") >= int(args[0]))
        out["cells"] = driver.execute_script(CELLS)
        out["status"] = driver.find_element(By.ID, "status").text
        if len(args) > 1:
            # Then the first FIRST cells' pictures, painted: a loaded browser may lay the whole
            # listing out before it has decoded them.
            def first(d):
                return [c for c in d.execute_script(CELLS) if c["kind"] == "item"][:int(args[1])]
            wait(driver, lambda d: all(c["painted"] for c in first(d)))
            out["first"] = first(driver)
    elif step == "unreadable":
        # The first N cells settled: painted, or saying why they cannot be.
        want = int(args[0])
        wait(driver, lambda d: sum(1 for c in d.execute_script(CELLS) if c["kind"] == "item" and (c["painted"] or c["unreadable"])) >= want)
        out["cells"] = driver.execute_script(CELLS)
    elif step == "snap":
        wait(driver, lambda d: d.execute_script(LUMA) >= 0)
        before = [c["id"] for c in driver.execute_script(CELLS) if c["kind"] == "item"]
        click(driver, By.ID, "camera-view")
        # Shown: the new cell is there and its thumbnail painted.
        wait(driver, lambda d: any(c["kind"] == "item" and c["id"] not in before and c["painted"] for c in d.execute_script(CELLS)))
        out["cells"] = driver.execute_script(CELLS)
    elif step == "choose":
        for item in args:
            click(driver, By.CSS_SELECTOR, '.cell.item[data-id="%s"]' % item)
        out["cells"] = driver.execute_script(CELLS)
        click(driver, By.ID, "confirm")
        wait(driver, lambda d: d.execute_script("return document.body.classList.contains('ended')"))
    elif step == "key":
        driver.find_element(By.TAG_NAME, "body").send_keys(getattr(Keys, args[0].upper(), args[0]))
        wait(driver, lambda d: d.execute_script("return document.body.classList.contains('ended')"))
    elif step == "flip":
        wait(driver, lambda d: d.execute_script(LUMA) >= 0)
        samples = []
        click(driver, By.ID, "camera-flip")
        # For SECONDS and for at least ten looks: on a loaded machine each look takes longer, and
        # a fixed window once held nine. The hang bound ends it whatever happens.
        start = time.monotonic()
        seconds = float(args[0] if args else 1.5)
        while time.monotonic() - start < 30 * HANG_SCALE:
            samples.append(round(driver.execute_script(LUMA), 2))
            if time.monotonic() - start >= seconds and len(samples) >= 10:
                break
            time.sleep(0.04)
        out["luma"] = samples
        out["status"] = driver.find_element(By.ID, "status").text
    elif step == "take":
        out["question"] = driver.execute_script(CELLS)
        click(driver, By.XPATH, "//*[contains(@class,'action') and text()='Take photo']")
        # The page is made anew for the camera stage; its camera cell shows frames.
        wait(driver, lambda d: d.execute_script(LUMA) > 0)
        out["cells"] = driver.execute_script(CELLS)
        click(driver, By.ID, "camera-view")
        wait(driver, lambda d: d.execute_script("return document.body.classList.contains('ended')"))
    elif step == "record":
        wait(driver, lambda d: d.execute_script(LUMA) >= 0)
        before = [c["id"] for c in driver.execute_script(CELLS) if c["kind"] == "item"]
        recording = "return document.getElementById('camera').classList.contains('recording')"
        click(driver, By.ID, "camera-record")
        wait(driver, lambda d: d.execute_script(recording))
        started = time.monotonic()
        if args:
            time.sleep(float(args[0]))
            click(driver, By.ID, "camera-record")
        wait(driver, lambda d: not d.execute_script(recording)
             and any(c["kind"] == "item" and c["id"] not in before and c["painted"] for c in d.execute_script(CELLS)), seconds=60)
        out.setdefault("videos", []).append({"seconds": round(time.monotonic() - started, 2),
                                             "status": driver.find_element(By.ID, "status").text})
        out["cells"] = driver.execute_script(CELLS)
    elif step == "toggle":
        for item in args:
            click(driver, By.CSS_SELECTOR, '.cell.item[data-id="%s"]' % item)
        driver.execute_async_script("const done = arguments[0]; selectionSent.then(() => done(true));")
        out["cells"] = driver.execute_script(CELLS)
    elif step == "rest":
        state = "return (typeof camera !== 'undefined' && camera) ? camera.state : null"
        wait(driver, lambda d: d.execute_script(LUMA) >= 0 and d.execute_script(state) == "live", 20)
        start = time.monotonic()
        driver.execute_script("const m = document.querySelector('main'); m.scrollTop = m.scrollHeight;")
        wait(driver, lambda d: d.execute_script(state) == "suspended", 10)
        out["rested_after"] = round(time.monotonic() - start, 3)
        start = time.monotonic()
        driver.execute_script("document.querySelector('main').scrollTop = 0;")
        samples = []
        while driver.execute_script(state) != "live" and time.monotonic() - start < 10:
            samples.append(round(driver.execute_script(LUMA), 2))
            time.sleep(0.02)
        out["woke_after"] = round(time.monotonic() - start, 3)
        # A second's frames after it is live again, and ten samples at least on a slow machine.
        end, enough = time.monotonic() + 1, len(samples) + 10
        while time.monotonic() < end or len(samples) < enough:
            samples.append(round(driver.execute_script(LUMA), 2))
            time.sleep(0.04)
        out["luma"] = samples
        out["state"] = driver.execute_script(state)
    elif step == "hide":
        state = "return (typeof camera !== 'undefined' && camera) ? camera.state : null"
        wait(driver, lambda d: d.execute_script(LUMA) >= 0 and d.execute_script(state) == "live", 20)
        page = driver.current_window_handle
        start = time.monotonic()
        driver.switch_to.new_window("tab")
        end = start + 10
        while server_state(url)["camera"]["state"] != "suspended" and time.monotonic() < end:
            time.sleep(0.05)
        out["hidden_state"] = server_state(url)["camera"]["state"]
        out["rested_after"] = round(time.monotonic() - start, 3)
        driver.close()
        driver.switch_to.window(page)
        wait(driver, lambda d: d.execute_script(state) == "live", 10)
        out["state"] = driver.execute_script(state)
    elif step == "nocamera":
        notice = "const n = document.getElementById('notice'); return n.hidden ? '' : n.textContent"
        wait(driver, lambda d: "No camera" in d.execute_script(notice))
        wait(driver, lambda d: not any(c["kind"] == "camera" for c in d.execute_script(CELLS)))
        out["cells"] = driver.execute_script(CELLS)
        out["notice"] = driver.execute_script(notice)
    elif step == "arrive":
        # No camera at first; the test is told so by FILE, plugs one in, and its cell comes.
        run_step(driver, url, "nocamera", [], out)
        out["before"] = out["cells"]
        focused = "const f = document.querySelector('#grid .cell[tabindex=\"0\"]'); return f ? (f.dataset.id || f.id) : null"
        notice = "const n = document.getElementById('notice'); return n.hidden ? '' : n.textContent"
        out["focused_before"] = driver.execute_script(focused)
        open(args[0], "w").close()
        wait(driver, lambda d: d.execute_script(LUMA) > 0, 40)
        out["arrived"] = driver.execute_script(CELLS)
        out["focused_after"] = driver.execute_script(focused)
        out["notice_after"] = driver.execute_script(notice)
        run_step(driver, url, "snap", [], out)
    else:
        raise SystemExit("unknown step " + step)


def session(driver, argv):
    """Runs one page's steps in the driver's current tab; the answer that main prints."""
    # Steps separated by "--then" run in one browser, one after the other: a second browser
    # would come after the first page closed, and the picker may already have ended for that.
    url, words = argv[0], argv[1:]
    steps = [[]]
    for word in words:
        if word == "--then":
            steps.append([])
        else:
            steps[-1].append(word)
    out = {}
    try:
        driver.get(url)
        wait(driver, lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
        for step, *args in steps:
            run_step(driver, url, step, args, out)
        out["ok"] = True
    except Exception as e:  # the test prints it: what the page showed when it went wrong
        out["ok"] = False
        out["error"] = "%s: %s" % (type(e).__name__, e)
        try:
            out["status"] = driver.find_element(By.ID, "status").text
        except Exception:
            pass
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
