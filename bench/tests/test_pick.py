import json
import unittest

from gpickbench import fixtures, pick
from gpickbench.measure import BenchError

MANIFEST = {"files": 7, "photos": 4, "videos": 1, "live": 2,
            "pairs": {"/l/IMG_1.JPG": "/l/LIVE_9.MOV"}, "motion_photos": ["/l/PXL_1.MP.jpg"]}
SUMMARY = {"found": 7, "unreadable": 0, "live-pairs": 1, "motion-photos": 1}


def listed(changes=None):
    """What `gpick library list --json` prints of the tree above, with {path: record or None} changes."""
    out = {
        "/l/IMG_1.JPG": {"path": "/l/IMG_1.JPG", "kind": "photo", "subtypes": ["live"], "paired-movie": "/l/LIVE_9.MOV"},
        "/l/PXL_1.MP.jpg": {"path": "/l/PXL_1.MP.jpg", "kind": "photo", "subtypes": ["live"],
                            "motion-photo": {"kind": "google", "video-offset": 100, "video-length": 50}},
        "/l/IMG_2.JPG": {"path": "/l/IMG_2.JPG", "kind": "photo", "subtypes": []},
        "/l/IMG_3.JPG": {"path": "/l/IMG_3.JPG", "kind": "photo", "subtypes": []},
        "/l/IMG_2.MOV": {"path": "/l/IMG_2.MOV", "kind": "video", "subtypes": []},
    }
    for path, record in (changes or {}).items():
        if record is None:
            out.pop(path, None)
        else:
            out[path] = record
    return list(out.values())


class CensusTests(unittest.TestCase):
    def test_everything_found_nothing_invented(self):
        got = pick.census(MANIFEST, listed(), SUMMARY)
        self.assertTrue(got["ok"], got)
        self.assertEqual((got["pairs_found"], got["motion_found"], got["invented_count"], got["live"]), (1, 1, 0, 2))

    def test_a_same_named_pair_is_invented(self):
        rec = {"path": "/l/IMG_2.JPG", "kind": "photo", "subtypes": ["live"], "paired-movie": "/l/IMG_2.MOV"}
        got = pick.census(MANIFEST, listed({"/l/IMG_2.JPG": rec}), SUMMARY)
        self.assertFalse(got["ok"])
        self.assertEqual((got["invented"], got["live"]), (["/l/IMG_2.JPG"], 3))

    def test_a_motion_photo_field_on_a_plain_asset_is_invented_too(self):
        rec = {"path": "/l/IMG_3.JPG", "kind": "photo", "subtypes": [], "motion-photo": {"kind": "google"}}
        got = pick.census(MANIFEST, listed({"/l/IMG_3.JPG": rec}), SUMMARY)
        self.assertFalse(got["ok"])
        self.assertEqual(got["invented_count"], 1)

    def test_a_missing_or_wrongly_paired_live_photo_fails(self):
        gone = pick.census(MANIFEST, listed({"/l/PXL_1.MP.jpg": None}), SUMMARY)
        self.assertFalse(gone["ok"])
        self.assertEqual((gone["motion_found"], gone["missing"]), (0, ["/l/PXL_1.MP.jpg"]))
        other = {"path": "/l/IMG_1.JPG", "kind": "photo", "subtypes": ["live"], "paired-movie": "/l/IMG_2.MOV"}
        wrong = pick.census(MANIFEST, listed({"/l/IMG_1.JPG": other}), SUMMARY)
        self.assertFalse(wrong["ok"])
        self.assertEqual((wrong["pairs_found"], wrong["wrong_movie"]), (0, ["/l/IMG_1.JPG"]))

    def test_counts_must_be_exact(self):
        self.assertFalse(pick.census(MANIFEST, listed({"/l/IMG_2.MOV": None}), SUMMARY)["ok"])
        self.assertFalse(pick.census(MANIFEST, listed(), {**SUMMARY, "found": 6})["ok"])
        self.assertFalse(pick.census(MANIFEST, listed(), {**SUMMARY, "unreadable": 1})["ok"])


class OutputTests(unittest.TestCase):
    def test_records_and_finished_events(self):
        text = "\n".join(json.dumps(e) for e in [{"event": "started"}, {"event": "asset", "path": "/a"},
                                                  {"event": "finished", "count": 1}])
        self.assertEqual(pick.records(text), [{"event": "asset", "path": "/a"}])
        self.assertEqual(pick.finished(text)["count"], 1)
        with self.assertRaises(ValueError):
            pick.finished('{"event": "started"}')

    def test_exiftool_fields(self):
        got = pick.exiftool_fields([{"SourceFile": "a", "ImageWidth": 1, "DateTimeOriginal": "x", "MIMEType": "image/jpeg"},
                                    {"SourceFile": "b.mov", "ContentIdentifier": "U", "Duration": 2, "CreateDate": "y"},
                                    {"SourceFile": "c", "MotionPhoto": 1}])
        self.assertEqual(got, {"files": 3, "size": 1, "date": 2, "duration": 1, "content_identifier": 1,
                               "motion_photo": 1, "mime": 1})

    def test_libbench_spreads(self):
        got = pick.libbench({"rows": 10, "assets": 9, "limit": 3, "open_ms": 4.0, "warmup": 5,
                             "newest": {"first_ms": 9.0, "runs_ms": [3.0, 1.0, 2.0, 10.0], "listed": 3,
                                        "newest_first": True, "bursts": 0}})
        self.assertEqual((got["newest"]["median"], got["newest"]["max"], got["newest"]["min"]), (2.5, 10.0, 1.0))
        self.assertEqual((got["newest"]["runs"], got["newest"]["first_ms"], got["rows"]), (4, 9.0, 10))

    def test_png_size(self):
        header = b"\x89PNG\r\n\x1a\n" + (13).to_bytes(4, "big") + b"IHDR" + (256).to_bytes(4, "big") + (192).to_bytes(4, "big")
        self.assertEqual(pick.png_size(header), (256, 192))
        self.assertIsNone(pick.png_size(b"\xff\xd8\xff\xe0" + b"\0" * 20))


class FixtureTests(unittest.TestCase):
    def test_apple_still_carries_its_identifier_where_gpick_reads_it(self):
        jpeg = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xdb\x00\x02"
        out = fixtures.apple_still(jpeg, "8A7E4C52-9C3B-4E5F-A1B2-C3D4E5F60718")
        self.assertEqual(out[:20], jpeg[:20])  # after SOI and APP0
        self.assertEqual(out[20:22], b"\xff\xe1")
        length = int.from_bytes(out[22:24], "big")
        tiff = out[30:22 + length]
        self.assertEqual(out[24:30], b"Exif\0\0")
        note = tiff.index(b"Apple iOS")
        # The MakerNote's one entry: tag 17, ASCII, its value at an offset from the note's start.
        entry = note + 14 + 2
        self.assertEqual(int.from_bytes(tiff[entry:entry + 2], "big"), 0x11)
        count, offset = int.from_bytes(tiff[entry + 4:entry + 8], "big"), int.from_bytes(tiff[entry + 8:entry + 12], "big")
        self.assertEqual(tiff[note + offset:note + offset + count - 1], b"8A7E4C52-9C3B-4E5F-A1B2-C3D4E5F60718")
        self.assertEqual(out[22 + length:], jpeg[20:])
        with self.assertRaises(BenchError):
            fixtures.apple_still(b"GIF89a", "x")

    def test_a_set_is_made_again_when_its_parameters_or_maker_change(self):
        a = fixtures.stamp("tree", fixtures.TREE, fixtures.make_tree)
        self.assertEqual(a, fixtures.stamp("tree", dict(fixtures.TREE), fixtures.make_tree))
        self.assertNotEqual(a, fixtures.stamp("tree", {**fixtures.TREE, "photos": 1}, fixtures.make_tree))
        self.assertNotEqual(a, fixtures.stamp("tree", fixtures.TREE, fixtures.make_photos))


if __name__ == "__main__":
    unittest.main()
