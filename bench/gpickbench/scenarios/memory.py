"""3. Peak memory and dropped frames: a long 1080p30 recording with audio, then its frame stamps
read back by `gpick inspect` (every frame of the test source carries its index)."""
import os

from .. import events
from .. import measure


def run(b):
    seconds = b.options.memory_seconds
    expected = seconds * 30
    movie = b.path("mem.mp4")
    record = [b.gpick, "record", "--source", "test:ball", "--width", "1920", "--height", "1080", "--fps", "30",
              "--duration", str(seconds), "--audio", "test", "-o", movie]
    inspect = [b.gpick, "inspect", movie, "--stamps", "--json"]
    b.log(f"memory: {seconds} s 1080p30 recording with test audio")
    usage = measure.run(record, timeout=seconds * 3 + 60, log=b.path("mem.log"))
    b.log("  reading its frame stamps")
    measure.run(inspect, timeout=600, log=b.path("inspect.err"), stdout=b.path("inspect.json"))
    with open(b.path("inspect.json")) as f:
        report = events.report_of(events.parse(f.read()))
    os.remove(movie)
    return {"command": b.show(record), "inspect_command": b.show(inspect), "expected_frames": expected,
            "run": usage.as_dict(), "stamps": events.stamp_continuity(report, expected)}
