"""The benchmarks, in the order they run. Each `run(bench)` returns plain data (JSON-able) that
`report` checks against the targets."""
from . import (avatar, camera, flips, imagesource, library, live, memory, motion, picker, realfiles, record, rest, session, snap, soak,
               stream, terminal, thumbs, watchclips)

ALL = {
    "snap": snap.run,
    "record": record.run,
    "memory": memory.run,
    "session": session.run,
    "live": live.run,
    "flips": flips.run,
    "terminal": terminal.run,
    # The pick half (gpick-library): the media library (L1-L3), thumbnails (L4, L5).
    "library": library.run,
    "thumbs": thumbs.run,
    # Real phone and camera files (R1-R3: indexing, thumbnails, memory), when the corpus is there;
    # writing a still's EXIF in-process (E1).
    "realfiles": realfiles.run,
    # ImageSource (L6): size() and the first progressive result, in-process.
    "imagesource": imagesource.run,
    # The picker (K1-K5): the page in headless Chromium, the terminal picker in tmux.
    "picker": picker.run,
    # The resting camera cell (K6-K8): CPU while it rests, and waking, with the test source and PipeWire.
    "rest": rest.run,
    # Avatars (A1-A3): the render in-process, `gpick avatar` against rsvg-convert, the editor in headless Chromium.
    "avatar": avatar.run,
    # Network streams (N2-N4): gpick serve's CPU with one viewer and ten, against ffmpeg; serve + record at 1080p30.
    "stream": stream.run,
    # Real cameras (C1, C2): choosing a mode from a real table, MJPEG decoding as the camera's stage does.
    "camera": camera.run,
    # Motion detection (M1, M2): its CPU at 1080p30 over a plain session, and how soon a start is told.
    "motion": motion.run,
    # Motion clips (M3): 10 minutes of gpick watch --record at 1080p30, 20 motions: RSS, every frame in every clip.
    "watchclips": watchclips.run,
    # The unattended run (S1): 45 minutes of serve, publish and a loop recording in one session.
    "soak": soak.run,
}
