"""What every scenario gets: where the binary and the scratch files are, the options, a log."""
import os
import shlex
import sys
import time
from dataclasses import dataclass, field


@dataclass
class Bench:
    root: str            # the repository, the working directory of every command
    work: str            # this run's scratch directory (absolute)
    gpick: str           # the snapshot of the binary that is benchmarked (absolute)
    gpick_shown: str     # the binary's name in the report (the path it was copied from)
    options: object      # the parsed command line (see __main__)
    started: float = field(default_factory=time.monotonic)

    def path(self, *names):
        return os.path.join(self.work, *names)

    def show(self, command):
        """A command (argv or text) as the report prints it: the binary by its own path, scratch
        files under bench/work, nothing machine-specific."""
        text = command if isinstance(command, str) else " ".join(
            a if a == "!" else shlex.quote(a) for a in map(str, command))  # gst-launch's links read as typed
        return (text.replace(self.gpick, self.gpick_shown).replace(self.work, "bench/work")
                .replace(self.root + "/", ""))

    def log(self, message):
        print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)

    def script(self, name, lines):
        """Writes a session script (one command per line) and returns its path."""
        path = self.path(name)
        with open(path, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        return path
