"""Generated media for the library and thumbnail benchmarks, cached under bench/work/fixtures/:
each set is made again only when it is missing or this file (the generator) changed, since making
them takes minutes and the bench already takes many.

- `tree()`: the library of L1/L2: 10,000 photos, 200 videos, 100 Apple live pairs and 100 Motion
  Photos, with traps a careless pairing would fall into (same-named photo and movie without
  identifiers, identifiers without their other half, Motion Photo XMP without its video), and a
  manifest of what a scan must find.
- `photos()`: L4's 200 JPEGs of 4032×3024 (about 3 MB each, with EXIF as a camera writes it).
- `videos()`: L5's 50 1080p30 H.264 + AAC MP4s of 4 s, keyframes every second (as phones record).

Few encoder processes: a few hundred small distinct pictures and clips are made in a handful of
runs (gst-launch's multifilesink, ffmpeg's image2, one exiftool process with -execute per file),
then copied under distinct names. Videos have their moov atom first (-movflags +faststart):
exiftool -fast2 stops at mdat, so a movie with moov last would give it nothing to read."""
import hashlib
import inspect
import json
import os
import random
import shutil
import uuid

from . import measure
from .measure import BenchError

# What the tree holds. Counts are the issue's; the traps are part of the plain photos and videos.
TREE = {"photos": 10_000, "videos": 200, "pairs": 100, "motion_photos": 100,
        "base_photos": 100, "base_videos": 10, "base_heads": 10,
        "same_name_decoys": 50,     # IMG_n.MOV beside IMG_n.JPG, neither with an identifier
        "stripped_motion": 20,      # Motion Photo XMP, no video appended (an editor's re-save)
        "orphan_stills": 10,        # an Apple MakerNote identifier whose movie is not there
        "orphan_movies": 10,        # a QuickTime content.identifier whose still is not there
        "apart_names": 15,          # pairs whose movie has another name (same folder)
        "apart_folders": 15}        # pairs whose movie is in another folder (same root)
PHOTOS = {"count": 200, "distinct": 20, "width": 4032, "height": 3024}
VIDEOS = {"count": 50, "distinct": 5, "seconds": 4}

# exiftool 12.57 knows neither GCamera:MotionPhoto, the Google Container directory nor the Keys
# content identifier: the same config the Swift tests use (Tests/Support/MediaFixtures.swift).
EXIFTOOL_CONFIG = """%Image::ExifTool::UserDefined = (
    'Image::ExifTool::XMP::Main' => {
        GContainer => { SubDirectory => { TagTable => 'Image::ExifTool::UserDefined::GContainer' } },
    },
    'Image::ExifTool::XMP::GCamera' => {
        MotionPhoto => { Writable => 'integer' },
        MotionPhotoVersion => { Writable => 'integer' },
        MotionPhotoPresentationTimestampUs => { Writable => 'integer' },
    },
    'Image::ExifTool::QuickTime::Keys' => {
        'content.identifier' => { Name => 'ContentIdentifier', Writable => 'string' },
    },
);
%Image::ExifTool::UserDefined::GContainer = (
    GROUPS => { 0 => 'XMP', 1 => 'XMP-GContainer', 2 => 'Image' },
    NAMESPACE => { 'GContainer' => 'http://ns.google.com/photos/1.0/container/' },
    WRITABLE => 'string',
    Directory => {
        List => 'Seq',
        Struct => {
            NAMESPACE => { 'GContainer' => 'http://ns.google.com/photos/1.0/container/' },
            Item => {
                Struct => {
                    NAMESPACE => { 'GItem' => 'http://ns.google.com/photos/1.0/container/item/' },
                    Mime => { }, Semantic => { },
                    Length => { Writable => 'integer' }, Padding => { Writable => 'integer' },
                },
            },
        },
    },
);
1;
"""


# --- Apple's MakerNote, as Sources/GpickFormats/AppleMakerNote.swift writes it (exiftool cannot
# create a MakerNote): an Exif APP1 with IFD0 → ExifIFD → MakerNote "Apple iOS", tag 17 = UUID.

def _be16(v):
    return v.to_bytes(2, "big")


def _be32(v):
    return v.to_bytes(4, "big")


def apple_exif_segment(identifier):
    text = identifier.encode() + b"\0"
    header = b"Apple iOS" + bytes([0, 0, 1]) + b"MM"
    value_offset = len(header) + 2 + 12 + 4
    note = header + _be16(1) + _be16(0x0011) + _be16(2) + _be32(len(text)) + _be32(value_offset) + _be32(0) + text
    exif_ifd = 8 + 2 + 12 + 4
    tiff = b"MM" + _be16(42) + _be32(8)
    tiff += _be16(1) + _be16(0x8769) + _be16(4) + _be32(1) + _be32(exif_ifd) + _be32(0)
    tiff += _be16(1) + _be16(0x927C) + _be16(7) + _be32(len(note)) + _be32(exif_ifd + 2 + 12 + 4) + _be32(0) + note
    payload = b"Exif\0\0" + tiff
    return b"\xff\xe1" + _be16(len(payload) + 2) + payload


def apple_still(jpeg, identifier):
    """The JPEG with Apple's Exif APP1 after SOI (and after APP0 when there is one)."""
    if jpeg[:2] != b"\xff\xd8":
        raise BenchError("fixtures: the still is not a JPEG")
    at = 2
    if jpeg[2:4] == b"\xff\xe0":
        at = 4 + int.from_bytes(jpeg[4:6], "big")
    return jpeg[:at] + apple_exif_segment(identifier) + jpeg[at:]


# --- The cache: a set is kept while its stamp (this file's text and the set's parameters) holds.

def stamp(name, params, make=None):
    """What a set was made from: its name and parameters, the text of its maker and of the helpers
    every maker uses. Another text, another set."""
    text = [name, json.dumps(params, sort_keys=True), EXIFTOOL_CONFIG]
    text += [inspect.getsource(f) for f in ([make] if make else []) + [
        apple_exif_segment, apple_still, exiftool_batch, gst_frames, small_clip, copy, exif_date]]
    return hashlib.sha256("\0".join(text).encode()).hexdigest()


def cached(b, name, params, make):
    """bench/work/fixtures/NAME, made by make(folder) unless its stamp says it is current."""
    folder = os.path.join(b.root, "bench/work/fixtures", name)
    stamp_file = os.path.join(folder, ".stamp")
    want = stamp(name, params, make)
    try:
        with open(stamp_file) as f:
            if f.read().strip() == want:
                return folder
    except OSError:
        pass
    b.log(f"fixtures: making {name} (cached in bench/work/fixtures/{name} for later runs)")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    make(folder)
    with open(stamp_file, "w") as f:
        f.write(want + "\n")
    return folder


def exiftool_batch(folder, commands, log):
    """Runs many exiftool commands in one process (-execute between them)."""
    config = os.path.join(folder, "gpick.config")
    if not os.path.exists(config):
        with open(config, "w") as f:
            f.write(EXIFTOOL_CONFIG)
    args = []
    for i, c in enumerate(commands):
        args += c + (["-execute"] if i + 1 < len(commands) else [])
    path = os.path.join(folder, "exiftool.args")
    with open(path, "w") as f:
        f.write("\n".join(args) + "\n")
    measure.run(["exiftool", "-config", config, "-q", "-q", "-@", path], timeout=1800, log=log)
    os.remove(path)


def gst_frames(pattern_args, count, width, height, location, log, extra="", encoder="jpegenc"):
    measure.run(["gst-launch-1.0", "-q", "videotestsrc", *pattern_args, f"num-buffers={count}", "!",
                 f"video/x-raw,width={width},height={height}", *(extra.split() if extra else []), "!", encoder, "!",
                 "multifilesink", f"location={location}"], timeout=600, log=log)


def small_clip(path, source, seconds, log, container=None):
    """A small H.264 + AAC clip with its moov first."""
    measure.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source, "-f", "lavfi", "-i",
                 f"sine=frequency=440:duration={seconds}", "-t", str(seconds), "-c:v", "libx264", "-preset", "veryfast",
                 "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k", "-movflags", "+faststart",
                 *(["-f", container] if container else []), path], timeout=300, log=log)


def copy(src, dest):
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copyfile(src, dest)


def exif_date(i):
    return f"{2016 + i % 9}:{1 + i % 12:02d}:{1 + i % 28:02d} {8 + i % 12:02d}:{i % 60:02d}:{(7 * i) % 60:02d}"


def make_tree(folder):
    t = TREE
    rng = random.Random(15)
    log = os.path.join(folder, "make.log")
    src, lib = os.path.join(folder, "src"), os.path.join(folder, "library")
    os.makedirs(src)
    # Distinct small pictures, one gst-launch each; EXIF as a camera writes it (one exiftool).
    gst_frames(["pattern=smpte", "horizontal-speed=3"], t["base_photos"], 320, 240, f"{src}/p%03d.jpg", log)
    gst_frames(["pattern=ball"], 1, 160, 120, f"{src}/thumb%d.jpg", log)
    gst_frames(["pattern=pinwheel"], t["pairs"] + t["orphan_stills"], 320, 240, f"{src}/a%03d.jpg", log)
    edits = []
    for i in range(t["base_photos"]):
        edits.append(["-overwrite_original", "-Make=Google", f"-Model=Pixel {6 + i % 3}", f"-DateTimeOriginal={exif_date(i)}",
                      "-OffsetTimeOriginal=+01:00", f"-Orientation#={6 if i % 5 == 0 else 1}",
                      f"-ThumbnailImage<={src}/thumb0.jpg", f"{src}/p{i:03d}.jpg"])
    # Motion Photo heads: Google's v1 XMP, its Container directory giving the video's length.
    motion_mp4 = f"{src}/motion.mp4"
    small_clip(motion_mp4, "testsrc2=size=320x240:rate=30", 1.5, log, container="mp4")
    length = os.path.getsize(motion_mp4)
    for i in range(t["base_heads"]):
        edits.append(["-o", f"{src}/head{i}.jpg", "-XMP-GCamera:MotionPhoto=1", "-XMP-GCamera:MotionPhotoVersion=1",
                      "-XMP-GCamera:MotionPhotoPresentationTimestampUs=500000",
                      "-XMP-GContainer:Directory=[{Item={Semantic=Primary,Mime=image/jpeg,Length=0,Padding=0}},"
                      f"{{Item={{Semantic=MotionPhoto,Mime=video/mp4,Length={length},Padding=0}}}}]",
                      f"{src}/p{i:03d}.jpg"])
    # Movies: plain ones of a few kinds, and the Apple ones (a content identifier in Keys).
    for i in range(t["base_videos"]):
        kind = ("testsrc2", "smptebars", "rgbtestsrc", "testsrc", "mandelbrot")[i % 5]
        small_clip(f"{src}/v{i}.{'mov' if i % 2 else 'mp4'}", f"{kind}=size=320x240:rate=30", 1 + i % 3, log,
                   container="mov" if i % 2 else "mp4")
    pair_ids = [str(uuid.UUID(int=rng.getrandbits(128))).upper() for _ in range(t["pairs"])]
    orphan_movie_ids = [str(uuid.UUID(int=rng.getrandbits(128))).upper() for _ in range(t["orphan_movies"])]
    orphan_still_ids = [str(uuid.UUID(int=rng.getrandbits(128))).upper() for _ in range(t["orphan_stills"])]
    pairs, movies = {}, []
    for i, ident in enumerate(pair_ids):
        folder_ = f"{lib}/Apple/{2018 + i % 6}/{1 + i % 12:02d}"
        still = f"{folder_}/IMG_{6000 + i}.JPG"
        if i < t["apart_names"]:
            movie = f"{folder_}/LIVE_{9000 + i}.MOV"                      # named apart
        elif i < t["apart_names"] + t["apart_folders"]:
            movie = f"{lib}/Apple/movies/IMG_{6000 + i}.MOV"              # in another folder
        else:
            movie = f"{folder_}/IMG_{6000 + i}.MOV"
        pairs[still] = movie
        movies.append((movie, ident))
    orphans = [(f"{lib}/Videos/orphans/IMG_{8000 + i}.MOV", ident) for i, ident in enumerate(orphan_movie_ids)]
    for path, ident in movies + orphans:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        edits.append(["-o", path, f"-Keys:ContentIdentifier={ident}", f"{src}/v1.mov"])
    exiftool_batch(folder, edits, log)
    # Apple stills: the MakerNote written here (exiftool cannot create one).
    for k, (still, ident) in enumerate(list(zip(pairs, pair_ids))
                                       + [(f"{lib}/Apple/orphans/IMG_{7000 + i}.JPG", x) for i, x in enumerate(orphan_still_ids)]):
        with open(f"{src}/a{k:03d}.jpg", "rb") as f:
            jpeg = f.read()
        os.makedirs(os.path.dirname(still), exist_ok=True)
        with open(still, "wb") as f:
            f.write(apple_still(jpeg, ident))
    # Motion Photos: head + MP4; stripped ones: the head alone (they count as plain photos).
    with open(motion_mp4, "rb") as f:
        mp4 = f.read()
    motion = []
    for i in range(t["motion_photos"]):
        path = f"{lib}/Pixel/{2020 + i % 5}/{1 + i % 12:02d}/PXL_{2020 + i % 5}{1 + i % 12:02d}{1 + i % 28:02d}_{100000 + i}.MP.jpg"
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(f"{src}/head{i % t['base_heads']}.jpg", "rb") as f, open(path, "wb") as out:
            out.write(f.read() + mp4)
        motion.append(path)
    # Plain photos: the traps first, then copies of the base pictures in dated camera folders.
    plain = t["photos"] - t["stripped_motion"] - t["orphan_stills"]
    for i in range(t["stripped_motion"]):
        copy(f"{src}/head{i % t['base_heads']}.jpg", f"{lib}/Pixel/stripped/PXL_2022_{200000 + i}.MP.jpg")
    stems = []
    for i in range(plain):
        folder_ = f"{lib}/Camera/{2016 + i % 9}/{1 + (i // 9) % 12:02d}"
        copy(f"{src}/p{i % t['base_photos']:03d}.jpg", f"{folder_}/IMG_{i:05d}.JPG")
        stems.append(f"{folder_}/IMG_{i:05d}")
    # Plain videos: same-named movies beside photos, then dated video folders.
    others = t["videos"] - t["same_name_decoys"] - t["orphan_movies"]
    for i in range(t["same_name_decoys"]):
        copy(f"{src}/v{1 + 2 * (i % (t['base_videos'] // 2))}.mov", stems[i * 97] + ".MOV")
    for i in range(others):
        j = i % t["base_videos"]
        ext = "mov" if j % 2 else "mp4"  # as the base clip was made
        copy(f"{src}/v{j}.{ext}", f"{lib}/Videos/{2016 + i % 9}/VID_{2016 + i % 9}{1 + i % 12:02d}{1 + i % 28:02d}_{i:04d}.{ext}")
    shutil.rmtree(src)
    rel = os.path.realpath  # gpick lists canonical paths
    manifest = {
        "root": rel(lib),
        "files": t["photos"] + t["videos"] + 2 * t["pairs"] + t["motion_photos"],
        "photos": t["photos"] + t["pairs"] + t["motion_photos"],
        "videos": t["videos"],
        "live": t["pairs"] + t["motion_photos"],
        "pairs": {rel(s): rel(m) for s, m in pairs.items()},
        "motion_photos": sorted(rel(p) for p in motion),
        "traps": {k: t[k] for k in ("same_name_decoys", "stripped_motion", "orphan_stills", "orphan_movies")},
    }
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def tree(b):
    """(library root, manifest) of L1/L2's tree."""
    folder = cached(b, "tree", TREE, make_tree)
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    return manifest["root"], manifest


def make_photos(folder):
    p = PHOTOS
    log = os.path.join(folder, "make.log")
    src = os.path.join(folder, "src")
    os.makedirs(src)
    # A zoom into the Mandelbrot set, one picture a frame: flat areas and fine detail, and some
    # grain (a sensor's), for about 3 MB a picture, as a 12 MP phone photo has.
    w, h = p["width"], p["height"]
    measure.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                 f"mandelbrot=size={w // 4}x{h // 4}:rate=1:start_scale=0.02:end_scale=0.0008:end_pts={p['distinct']}"
                 ":start_x=-0.743643887037151:start_y=0.131825904205330:maxiter=400,"
                 f"scale={w}x{h}:flags=bicubic,noise=alls=3:allf=t", "-frames:v", str(p["distinct"]), "-q:v", "4",
                 f"{src}/m%02d.jpg"], timeout=900, log=log)
    gst_frames(["pattern=ball"], 1, 160, 120, f"{src}/thumb%d.jpg", log)
    edits = [["-overwrite_original", "-Make=Google", "-Model=Pixel 7", f"-DateTimeOriginal={exif_date(i)}",
              f"-Orientation#={6 if i % 4 == 0 else 1}", "-ExposureTime=1/120", "-FNumber=1.9", "-ISO=64",
              f"-ThumbnailImage<={src}/thumb0.jpg", f"{src}/m{i + 1:02d}.jpg"] for i in range(p["distinct"])]
    exiftool_batch(folder, edits, log)
    for i in range(p["count"]):
        copy(f"{src}/m{i % p['distinct'] + 1:02d}.jpg", os.path.join(folder, "jpeg", f"PXL_{i:04d}.jpg"))
    shutil.rmtree(src)


def photos(b):
    """L4's JPEGs, sorted paths."""
    folder = os.path.join(cached(b, "photos", PHOTOS, make_photos), "jpeg")
    return sorted(os.path.join(folder, n) for n in os.listdir(folder))


def make_videos(folder):
    v = VIDEOS
    log = os.path.join(folder, "make.log")
    src = os.path.join(folder, "src")
    os.makedirs(src)
    sources = ["testsrc2", "smptehdbars", "testsrc", "rgbtestsrc", "testsrc2"]
    for i in range(v["distinct"]):
        # Moving test content with temporal grain, at a phone's bit rate (12 Mbit/s), a keyframe
        # a second, no B-frames; AAC stereo beside it.
        measure.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                     f"{sources[i]}=size=1920x1080:rate=30,hue=h={40 * i},noise=alls={6 + i}:allf=t+u",
                     "-f", "lavfi", "-i", f"sine=frequency={300 + 50 * i}:duration={v['seconds']}:sample_rate=48000",
                     "-t", str(v["seconds"]), "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high",
                     "-pix_fmt", "yuv420p", "-g", "30", "-bf", "0", "-b:v", "12M", "-maxrate", "15M", "-bufsize", "24M",
                     "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-movflags", "+faststart", f"{src}/c{i}.mp4"],
                    timeout=900, log=log)
    for i in range(v["count"]):
        copy(f"{src}/c{i % v['distinct']}.mp4", os.path.join(folder, "mp4", f"VID_{i:04d}.mp4"))
    shutil.rmtree(src)


def videos(b):
    """L5's MP4s, sorted paths."""
    folder = os.path.join(cached(b, "videos", VIDEOS, make_videos), "mp4")
    return sorted(os.path.join(folder, n) for n in os.listdir(folder))
