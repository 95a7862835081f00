"""4. Session snap latency: a running 1080p30 session answers `snap` from the retained frame, so
command → file should take at most one frame interval plus the encode (and write) time."""
import os

from .. import events, measure


def run(b):
    shots = b.options.session_shots
    os.makedirs(b.path("sess"), exist_ok=True)
    script = b.script("sess.script", [line for i in range(1, shots + 2) for line in (f"snap s{i}.jpg", "wait 0.2s")])
    argv = [b.gpick, "session", "--source", "test", "--width", "1920", "--height", "1080", "--fps", "30", "--json",
            "--output-dir", b.path("sess")]
    b.log(f"session: {shots} snaps at 1080p30 in one running session")
    measure.run(argv, timeout=120, log=b.path("sess.err"), stdin=script, stdout=b.path("sess.json"))
    with open(b.path("sess.json")) as f:
        found = events.session_snaps(events.parse(f.read()))
    shown = b.show(argv).replace(b.show(b.path("sess")), "DIR")
    return {"command": f"printf 'snap s1.jpg\\nwait 0.2s\\n…' | {shown}", **found}
