"""A home of its own for the pick half's benchmarks: HOME and the XDG folders point under
bench/work/home, so the user's library index, thumbnail cache and GStreamer registry are never
read or written. The folder is kept between runs (a warm GStreamer registry, as a user has)."""
import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass

VARIABLES = ("HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "GPICK_LIBRARY")


@dataclass(frozen=True)
class Home:
    path: str

    @property
    def index(self):
        """gpick's library index, $XDG_DATA_HOME/gpick/library.sqlite."""
        return os.path.join(self.path, "data", "gpick", "library.sqlite")

    @property
    def index_files(self):
        return [self.index + suffix for suffix in ("", "-wal", "-shm")]

    @property
    def thumbnails(self):
        """The freedesktop.org thumbnail cache, $XDG_CACHE_HOME/thumbnails."""
        return os.path.join(self.path, "cache", "thumbnails")

    def clear_thumbnails(self):
        shutil.rmtree(self.thumbnails, ignore_errors=True)

    def clear_index(self):
        for f in self.index_files:
            if os.path.exists(f):
                os.remove(f)


@contextmanager
def private_home(b):
    home = Home(os.path.join(b.root, "bench/work/home"))
    saved = {k: os.environ.get(k) for k in VARIABLES}
    for sub in ("data", "cache", "config"):
        os.makedirs(os.path.join(home.path, sub), exist_ok=True)
    os.environ.update(HOME=home.path, XDG_DATA_HOME=os.path.join(home.path, "data"),
                      XDG_CACHE_HOME=os.path.join(home.path, "cache"), XDG_CONFIG_HOME=os.path.join(home.path, "config"))
    os.environ.pop("GPICK_LIBRARY", None)
    try:
        yield home
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
