"""Reading gpick's outputs: `--json` event streams (one JSON object per line) and `inspect
--stamps` reports. Pure functions over parsed data; the unit tests feed them recorded lines."""
import json
import statistics

FRAME_MS_30 = 1000 / 30


def parse(text):
    """The JSON objects of an event stream, in order; other lines (a URL printed for a human) skipped."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def report_of(events):
    """The `report` event of `gpick inspect --json`."""
    found = [e for e in events if e.get("event") == "report"]
    if not found:
        raise ValueError("gpick inspect printed no report event")
    return found[-1]


def stamp_indices(report):
    """(source ids, frame indices in file order, None where a frame's stamp was unreadable)."""
    ids, indices = set(), []
    for s in report.get("stamps") or []:
        if not s:
            indices.append(None)
            continue
        source, _, index = s.partition(":")
        ids.add(source)
        indices.append(int(index))
    return ids, indices


def consecutive(indices):
    return bool(indices) and all(a is not None and b is not None and b == a + 1 for a, b in zip(indices, indices[1:]))


def stamp_continuity(report, expected):
    """Whether a recording holds exactly frames 0..expected-1 of one source, and what is wrong if not."""
    ids, idx = stamp_indices(report)
    good = [i for i in idx if i is not None]
    missing = sorted(set(range(expected)) - set(good))
    return {
        "frames": report.get("frames"),
        "duration": report.get("duration"),
        "stamps": len(idx),
        "source_ids": sorted(ids),
        "unreadable": idx.count(None),
        "first": good[0] if good else None,
        "last": good[-1] if good else None,
        "breaks": sum(1 for a, b in zip(idx, idx[1:]) if a is None or b is None or b != a + 1),
        "missing": len(missing),
        "first_missing": missing[:10],
        "ok": report.get("frames") == expected and len(ids) == 1 and idx == list(range(expected)),
    }


def session_snaps(events, frame_ms=FRAME_MS_30):
    """Per `snap` command of a session: command → file (ms), command → exposure complete, and
    exposure → file (encode + write). The first snap, which also starts the session, is left out.
    A shot is late when it took more than one frame interval plus its own encode time."""
    cmd, exposed, delivered = {}, {}, {}
    for e in events:
        kind, line = e.get("event"), e.get("line")
        if kind == "command" and e.get("text", "").startswith("snap"):
            cmd[line] = e["t"]
        elif kind == "capture-exposure-complete":
            exposed[line] = e["t"]
        elif kind == "capture-data-delivered":
            delivered[line] = e["t"]
    lines = sorted(line for line in cmd if line in exposed and line in delivered)[1:]
    if not lines:
        raise ValueError("no snap was delivered after the first")
    latency = [(delivered[x] - cmd[x]) * 1000 for x in lines]
    encode = [(delivered[x] - exposed[x]) * 1000 for x in lines]
    wait = [(exposed[x] - cmd[x]) * 1000 for x in lines]
    return {
        "shots": len(lines),
        "latency_median": statistics.median(latency), "latency_max": max(latency),
        "encode_median": statistics.median(encode),
        "wait_median": statistics.median(wait), "wait_max": max(wait),
        "late": sum(1 for a, e in zip(latency, encode) if a > frame_ms + e),
    }


def live_shutter_seconds(events):
    """Per live photo: shutter → the last of its files written, in seconds."""
    shutter, done = {}, {}
    for e in events:
        if e.get("event") == "shutter":
            shutter[e["line"]] = e["t"]
        elif e.get("event") == "file-written" and e.get("line") in shutter:
            done[e["line"]] = max(done.get(e["line"], 0), e["t"])
    return [done[x] - shutter[x] for x in sorted(shutter) if x in done]


def preview_stopped(events):
    """The frames a preview showed, was offered and dropped, from its `preview-stopped` event."""
    found = [e for e in events if e.get("event") == "preview-stopped"]
    if not found:
        raise ValueError("the session reported no preview-stopped event")
    e = found[0]
    return {"shown": e["frames"], "offered": e["camera-frames"], "dropped": e["dropped"]}


def flips(events):
    """Per flip: on the output timeline, the request's running time (`switching` time) → the first
    placeholder frame's timestamp, in ms, floored at 0 (the placeholder takes the slot after the last
    camera frame shown, which can lie just before the request); and on the wall clock, the `flip`
    command → the first placeholder event before the next flip."""
    requests = [e["t"] for e in events if e.get("event") == "command" and e.get("text") == "flip"]
    placeholders = [e["t"] for e in events if e.get("event") == "placeholder"]
    timeline, marks = [], [(e["event"], e["time"]) for e in events if e.get("event") in ("switching", "placeholder")]
    for i, (kind, at) in enumerate(marks):
        if kind == "switching":
            nxt = next((t for k, t in marks[i + 1:] if k == "placeholder"), None)
            if nxt is not None:
                timeline.append(max(0.0, (nxt - at) * 1000))
    wall = []
    for i, at in enumerate(requests):
        until = requests[i + 1] if i + 1 < len(requests) else float("inf")
        after = [p for p in placeholders if at <= p < until]
        if after:
            wall.append((after[0] - at) * 1000)
    return {"count": len(requests), "placeholders": len(wall), "timeline_ms": timeline, "wall_ms": wall}
