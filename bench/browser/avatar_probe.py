#!/usr/bin/python3
"""Times gpick's avatar editor in a real headless Chromium (Debian's python3-selenium and
chromium-driver), for bench/gpickbench's avatar section (A3): a change in a field → the new preview
shown. Each time is the page's own clock (performance.now()): from setting the top colour (its input
event, as a colour picker sends it) to the next animation frame after the new preview has loaded.

Usage: avatar_probe.py URL N; prints one JSON object with the N times in ms. Presses Cancel at the end.
"""
import json
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHANGE = """
const [colour, done] = arguments;
const img = document.getElementById('preview');
const before = Number(img.dataset.sequence || 0);
const field = document.getElementById('color1');
document.getElementById('gradient').checked = false;
const start = performance.now();
field.value = colour;
field.dispatchEvent(new Event('input', { bubbles: true }));
(function check() {
  if (Number(img.dataset.sequence || 0) > before && img.complete && img.naturalWidth && window.gpickPreviewIdle) {
    requestAnimationFrame(() => done(performance.now() - start));
  } else setTimeout(check, 0);
})();
"""

COLOURS = ["#e53935", "#1e88e5", "#43a047", "#fdd835", "#8e24aa", "#00897b", "#6d4c41", "#f4511e"]


def main():
    url, n = sys.argv[1], int(sys.argv[2])
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1000,900", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    out = {}
    try:
        driver.set_script_timeout(30)
        driver.get(url)
        WebDriverWait(driver, 30, poll_frequency=0.02).until(lambda d: d.execute_script(
            "const i = document.getElementById('preview'); return i.complete && i.naturalWidth > 0 && window.gpickPreviewIdle;"))
        # Two changes first, not counted: the page's and gpick's first calls warm up.
        times = [driver.execute_async_script(CHANGE, COLOURS[i % len(COLOURS)]) for i in range(n + 2)][2:]
        out["ms"] = [round(t, 2) for t in times]
        driver.find_element(By.ID, "cancel").click()
        out["ok"] = True
    except Exception as e:
        out["ok"] = False
        out["error"] = "%s: %s" % (type(e).__name__, e)
    finally:
        driver.quit()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
