"""A private PipeWire for the bench, as the tests start one (Tests/Support/PipeWireDaemon.swift):
a session D-Bus, `pipewire` and `wireplumber` in a runtime folder of their own, with PipeWire's
videotestsrc SPA node exported as a camera ("Test Camera", node name `testcam`). No hardware,
nothing of the user's session touched; every process is stopped when the block ends."""
import json
import os
import shutil
import subprocess
import time
from contextlib import contextmanager

from .measure import BenchError

NODE = "testcam"
CONFIG = """context.objects = [
  { factory = spa-node-factory
    args = { factory.name = videotestsrc library.name = videotestsrc/libspa-videotestsrc
             node.name = %s node.description = "Test Camera" media.class = Video/Source object.export = true } }
]
""" % NODE


def _until(what, test, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if test():
            return
        time.sleep(0.05)
    raise BenchError(f"pipewire: {what} did not come up within {seconds} s")


def node_state(env, name=NODE):
    """The node's state as pw-dump reports it ("running", "idle", "suspended"), None if unlisted."""
    out = subprocess.run(["pw-dump"], capture_output=True, text=True, env=env, timeout=20).stdout
    for o in json.loads(out or "[]"):
        info = o.get("info") or {}
        if o.get("type") == "PipeWire:Interface:Node" and (info.get("props") or {}).get("node.name") == name:
            return info.get("state")
    return None


@contextmanager
def daemon(folder, log):
    """Yields the environment that points gpick (and pw-dump) at the private PipeWire."""
    shutil.rmtree(folder, ignore_errors=True)
    runtime, confd = os.path.join(folder, "run"), os.path.join(folder, "config", "pipewire", "pipewire.conf.d")
    os.makedirs(runtime, mode=0o700)
    os.makedirs(confd)
    with open(os.path.join(confd, "testcam.conf"), "w") as f:
        f.write(CONFIG)
    bus = f"unix:path={runtime}/bus"
    env = {**os.environ, "XDG_RUNTIME_DIR": runtime, "XDG_CONFIG_HOME": os.path.join(folder, "config"),
           "DBUS_SESSION_BUS_ADDRESS": bus}
    started = []
    with open(log, "ab") as err:
        try:
            def start(argv):
                started.append(subprocess.Popen(argv, env=env, stdout=err, stderr=err, stdin=subprocess.DEVNULL,
                                                start_new_session=True))
            start(["dbus-daemon", "--session", f"--address={bus}", "--nofork", "--nopidfile"])
            _until("the session bus", lambda: os.path.exists(os.path.join(runtime, "bus")), 10)
            start(["pipewire"])
            _until("pipewire", lambda: os.path.exists(os.path.join(runtime, "pipewire-0")), 10)
            start(["wireplumber"])
            _until(f"the camera node {NODE}", lambda: node_state(env) is not None, 20)
            yield env
        finally:
            for p in reversed(started):
                p.terminate()
                try:
                    p.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
