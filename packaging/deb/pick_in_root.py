#!/usr/bin/python3
"""The terminal picker inside the package check's root (argv[1]), in a pseudo-terminal of its
own: it must draw its grid with the test source's camera cell live, take a photo on `s`, and
print the photo's path when Enter picks it. Prints what it saw; exits non-zero on a failure."""
import fcntl
import os
import pty
import select
import struct
import sys
import termios
import time

root = sys.argv[1]
gpick = sys.argv[2] if len(sys.argv) > 2 else "gpick"
argv = ["chroot", root, "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=/root", "TERM=xterm-256color", "LANG=C.UTF-8",
        gpick, "pick", "--ui", "terminal", "--source", "test", "--output-dir", "/tmp/out"]
pid, fd = pty.fork()
if pid == 0:
    # A terminal of 100 columns and 30 rows, as a window would give it.
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    os.execvp(argv[0], argv)

seen = b""


def read_until(marker, seconds):
    global seen
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            # The picker asks the terminal for its size in pixels and its colours: no answer is fine.
        if marker in seen:
            return True
    return False


def fail(why):
    print(f"pick: {why}\n{seen[-3000:].decode(errors='replace')}")
    sys.exit(1)


# The header says "camera off", then "starting", then the camera's position once it is live
# (only what changed is redrawn, so the word comes alone).
if not read_until(b"back", 60):
    fail("the camera cell never went live")
os.write(fd, b"s")
if not read_until(b"pick-0001.jpg", 30):
    fail("s took no photo")
os.write(fd, b"\x1b[C\r")  # right, onto the photo (Enter on the camera cell takes another), Enter
if not read_until(b"/tmp/out/pick-0001.jpg\r\n", 30):
    fail("Enter printed no path")
_, status = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(status)
if code != 0:
    fail(f"exit {code}")
print("pick: took /tmp/out/pick-0001.jpg in the camera cell and printed its path")
