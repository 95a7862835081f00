#!/usr/bin/python3
"""Drives gpick's avatar editor page in a real headless Chromium (Selenium + chromium-driver),
for the Swift tests. Usage: avatar_driver.py URL STEP... ; runs the steps in one page and prints
one JSON object: after each step, the preview's pixel at the middle of its top third (the text
sits lower) and the status line.

Steps:
  colour:#RRGGBB     sets the top colour, as a colour picker does (input, then change)
  upload:PATH        chooses a file in the File field
  drop:#RRGGBB       drops a PNG of that colour (made on a canvas) on the preview
  paste:#RRGGBB      pastes one from the clipboard
  color-button       presses "Color"
  library            opens the library and clicks its first photo
  camera             presses "Camera"
  camera-state       records whether "Camera" can be pressed, and its tooltip
  text:TEXT          types the text (replacing it)
  save               presses ✕; waits for "Saved"
  cancel             presses Cancel; waits for the page to end
  timed:#RRGGBB      A3 (bench): sets the colour and measures until the new preview is shown
"""
import json
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# Waits are hang bounds, read as the Swift tests read theirs (HangBound): scaled by
# GPICK_TEST_HANG_SCALE on a slower machine.
HANG_SCALE = max(1.0, float(os.environ.get("GPICK_TEST_HANG_SCALE") or 1))


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1000,900", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


# The preview's pixel at (50%, 20%), read through a canvas (a blob: URL of the page: not tainted).
PIXEL = """
const img = document.getElementById('preview');
if (!img.complete || !img.naturalWidth) return null;
const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
const g = c.getContext('2d'); g.drawImage(img, 0, 0);
const d = g.getImageData(Math.floor(c.width / 2), Math.floor(c.height / 5), 1, 1).data;
return [d[0], d[1], d[2], d[3]];
"""

SEQUENCE = "const i = document.getElementById('preview'); return i.complete && i.naturalWidth ? Number(i.dataset.sequence || 0) : 0;"

def wait(driver, condition, seconds=20):
    return WebDriverWait(driver, seconds * HANG_SCALE, poll_frequency=0.02).until(lambda d: condition(d))


def set_value(driver, element_id, value, events=("input", "change")):
    driver.execute_script(
        "const e = document.getElementById(arguments[0]); e.value = arguments[1];"
        "for (const t of arguments[2]) e.dispatchEvent(new Event(t, { bubbles: true }));",
        element_id, value, list(events))


def seq(driver):
    return driver.execute_script(SEQUENCE)


def settled_after(driver, before):
    """Waits for a preview newer than `before` and for no request still running."""
    wait(driver, lambda d: seq(d) > before and d.execute_script(
        "return !document.getElementById('status').textContent.endsWith('…')"))
    # A change coalesced behind a running request is drawn next: wait until none is pending.
    wait(driver, lambda d: d.execute_script("return window.gpickPreviewIdle === true"))


def synthetic(driver, kind, colour):
    """Drops or pastes a PNG of `colour` made on a canvas (what a file manager or the clipboard gives)."""
    driver.execute_async_script("""
const [kind, colour, done] = arguments;
(async () => {
  const c = document.createElement('canvas'); c.width = 64; c.height = 48;
  const g = c.getContext('2d'); g.fillStyle = colour; g.fillRect(0, 0, 64, 48);
  const blob = await new Promise(r => c.toBlob(r, 'image/png'));
  const dt = new DataTransfer(); dt.items.add(new File([blob], kind + '.png', { type: 'image/png' }));
  if (kind === 'drop') {
    const target = document.getElementById('drop');
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  } else {
    document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }
  done(true);
})();
""", kind, colour)


def session(driver, argv):
    """Runs one page's steps in the driver's current tab; the answer that main prints."""
    url, steps = argv[0], argv[1:]
    out = {"steps": []}
    try:
        driver.get(url)
        wait(driver, lambda d: seq(d) >= 1)
        out["first"] = {"pixel": driver.execute_script(PIXEL)}
        for step in steps:
            name, _, arg = step.partition(":")
            before = seq(driver)
            record = {"step": step}
            if name == "colour":
                driver.execute_script("document.getElementById('gradient').checked = false;")
                set_value(driver, "color1", arg)
                settled_after(driver, before)
            elif name == "upload":
                driver.find_element(By.ID, "file").send_keys(arg)
                settled_after(driver, before)
            elif name in ("drop", "paste"):
                synthetic(driver, name, arg)
                settled_after(driver, before)
            elif name == "color-button":
                driver.find_element(By.ID, "color-button").click()
                settled_after(driver, before)
                record["pressed"] = driver.find_element(By.ID, "color-button").get_attribute("aria-pressed")
                record["colours-hidden"] = driver.execute_script("return document.getElementById('colours').hidden")
            elif name == "library":
                driver.find_element(By.ID, "library").click()
                wait(driver, lambda d: d.execute_script(
                    "const i = document.querySelector('#library-grid img'); return !!(i && i.complete && i.naturalWidth > 0);"))
                record["assets"] = driver.execute_script(
                    "return Array.from(document.querySelectorAll('#library-grid .asset')).map(b => b.dataset.id)")
                driver.find_element(By.CSS_SELECTOR, "#library-grid .asset").click()
                settled_after(driver, before)
            elif name == "camera":
                driver.find_element(By.ID, "camera").click()
                settled_after(driver, before)
            elif name == "camera-state":
                button = driver.find_element(By.ID, "camera")
                record["camera-disabled"] = not button.is_enabled()
                record["camera-title"] = button.get_attribute("title")
            elif name == "text":
                set_value(driver, "text", arg, ("input",))
                settled_after(driver, before)
            elif name == "save":
                driver.find_element(By.ID, "close").click()
                wait(driver, lambda d: d.execute_script("return document.body.classList.contains('ended')"))
            elif name == "cancel":
                driver.find_element(By.ID, "cancel").click()
                wait(driver, lambda d: d.execute_script("return document.body.classList.contains('ended')"))
            elif name == "timed":
                # From the change to the new preview painted: the event, the request, gpick's
                # render, the decode and the paint (the next animation frame after it loads).
                ms = driver.execute_async_script("""
const [colour, done] = arguments;
const img = document.getElementById('preview');
const start = performance.now();
const before = Number(img.dataset.sequence || 0);
const e = document.getElementById('color1');
document.getElementById('gradient').checked = false;
e.value = colour; e.dispatchEvent(new Event('input', { bubbles: true }));
const check = () => {
  if (Number(img.dataset.sequence || 0) > before && img.complete && img.naturalWidth) {
    requestAnimationFrame(() => done(performance.now() - start));
  } else setTimeout(check, 1);
};
check();
""", arg)
                record["ms"] = ms
            else:
                raise SystemExit("unknown step " + step)
            record["pixel"] = driver.execute_script(PIXEL)
            record["status"] = driver.find_element(By.ID, "status").text
            out["steps"].append(record)
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
