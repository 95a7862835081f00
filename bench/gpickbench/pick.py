"""Reading the pick half's outputs (`gpick library … --json`, exiftool's JSON, gpick-libbench's
timings) and checking them against the generator's manifest. Pure functions over parsed data; the
unit tests feed them made-up records."""
import statistics

from . import events


def records(text, event="asset"):
    """The `asset` records of `gpick library list --json` (one JSON object a line)."""
    return [e for e in events.parse(text) if e.get("event") == event]


def finished(text):
    """The `finished` event of a `gpick library …` command."""
    found = [e for e in events.parse(text) if e.get("event") == "finished"]
    if not found:
        raise ValueError("the command printed no finished event")
    return found[-1]


def census(manifest, listed, summary):
    """What a scan found against what the tree holds: every Apple pair (with its own movie) and
    every Motion Photo found, nothing else called live, and the photo, video and file counts."""
    pairs, motion = manifest["pairs"], set(manifest["motion_photos"])
    live = [r for r in listed if "live" in (r.get("subtypes") or [])]
    by_path = {r["path"]: r for r in live}
    pairs_found = sum(1 for still, movie in pairs.items() if by_path.get(still, {}).get("paired-movie") == movie)
    wrong_movie = sorted(s for s, m in pairs.items() if s in by_path and by_path[s].get("paired-movie") != m)
    motion_found = sum(1 for p in motion if "motion-photo" in by_path.get(p, {}))
    missing = sorted(p for p in list(pairs) + sorted(motion) if p not in by_path)
    invented = sorted(r["path"] for r in live if r["path"] not in pairs and r["path"] not in motion)
    # A pairing or a Motion Photo on an asset not listed live is invented as well.
    invented += sorted(r["path"] for r in listed if "live" not in (r.get("subtypes") or [])
                       and ("paired-movie" in r or "motion-photo" in r))
    photos = sum(1 for r in listed if r.get("kind") == "photo")
    videos = sum(1 for r in listed if r.get("kind") == "video")
    out = {
        "pairs": len(pairs), "pairs_found": pairs_found, "wrong_movie": wrong_movie[:5],
        "motion_photos": len(motion), "motion_found": motion_found,
        "live": len(live), "live_expected": manifest["live"], "missing": missing[:5], "missing_count": len(missing),
        "invented": invented[:5], "invented_count": len(invented),
        "photos": photos, "photos_expected": manifest["photos"], "videos": videos, "videos_expected": manifest["videos"],
        "files_found": summary.get("found"), "files_expected": manifest["files"],
        "unreadable": summary.get("unreadable"),
        "scan_pairs": summary.get("live-pairs"), "scan_motion_photos": summary.get("motion-photos"),
    }
    out["ok"] = (pairs_found == len(pairs) and motion_found == len(motion) and not invented and not wrong_movie
                 and len(live) == manifest["live"] and photos == manifest["photos"] and videos == manifest["videos"]
                 and summary.get("found") == manifest["files"] and summary.get("unreadable") == 0)
    return out


# The fields gpick's scan reads of each file, as exiftool names them (with the generator's config
# for the Google and Keys tags exiftool 12.57 does not know).
EXIFTOOL_TAGS = ("MIMEType", "ImageWidth", "ImageHeight", "Orientation", "Rotation", "Duration", "DateTimeOriginal",
                 "OffsetTimeOriginal", "CreateDate", "ContentIdentifier", "MotionPhoto", "MotionPhotoVersion",
                 "MotionPhotoPresentationTimestampUs", "MicroVideo", "MicroVideoOffset", "DirectoryItemSemantic",
                 "DirectoryItemMime", "DirectoryItemLength", "BurstUUID", "UserComment", "Software", "ProjectionType",
                 "UsePanoramaViewer")


def exiftool_fields(entries):
    """How many files exiftool printed, and how many of them had each field that tells something."""
    def count(tag):
        return sum(1 for e in entries if tag in e)
    return {"files": len(entries), "size": count("ImageWidth"), "date": count("DateTimeOriginal") + count("CreateDate"),
            "duration": count("Duration"), "content_identifier": count("ContentIdentifier"),
            "motion_photo": count("MotionPhoto"), "mime": count("MIMEType")}


def spread(ms):
    """median, p95, min, max of a list of timings."""
    s = sorted(ms)
    return {"median": statistics.median(s), "p95": s[min(len(s) - 1, round(0.95 * (len(s) - 1)))],
            "min": s[0], "max": s[-1], "runs": len(s)}


def libbench(result):
    """gpick-libbench's JSON: each query's spread of timings after the warm-up, plus what it listed."""
    out = {k: result[k] for k in ("rows", "assets", "limit", "open_ms", "warmup") if k in result}
    for name, r in result.items():
        if isinstance(r, dict) and "runs_ms" in r:
            out[name] = {**spread(r["runs_ms"]), **{k: v for k, v in r.items() if k != "runs_ms"}}
    return out


def png_size(data):
    """(width, height) from a PNG's IHDR, None when it is not a PNG."""
    if len(data) < 24 or data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
