#!/usr/bin/python3
"""One headless Chromium for many page tests. Usage: browser_host.py DRIVER, where DRIVER is one of
this folder's drivers (picker_driver, avatar_driver, page_checks). Reads one JSON object per line
on stdin, {"argv": [URL, ...]} (the driver's own arguments), runs the driver's session in a new
tab, closes every tab it opened (the page is left as a user leaves it), and prints the session's
answer as one JSON line. Ends, quitting the browser, when stdin closes.

Starting Chromium costs more CPU than most page tests' own work; tabs of one browser are as
separate as pages on different ports need (each picker or editor has its own origin, cookie and
storage). A browser that fails outside a session is quit, and the next request starts a new one.
"""
import importlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def serve(driver_module):
    module = importlib.import_module(driver_module)
    driver = None
    for line in sys.stdin:
        if not line.strip():
            continue
        argv = json.loads(line)["argv"]
        try:
            if driver is None:
                driver = module.browser()
            home = driver.current_window_handle
            driver.switch_to.new_window("tab")
            try:
                out = module.session(driver, argv)
            finally:
                for handle in driver.window_handles:
                    if handle != home:
                        driver.switch_to.window(handle)
                        driver.close()
                driver.switch_to.window(home)
        except Exception as e:  # the browser itself failed: the answer says so, the next one starts anew
            out = {"ok": False, "error": "browser: %s: %s" % (type(e).__name__, e)}
            try:
                driver.quit()
            except Exception:
                pass
            driver = None
        print(json.dumps(out), flush=True)
    if driver is not None:
        driver.quit()


if __name__ == "__main__":
    serve(sys.argv[1])
