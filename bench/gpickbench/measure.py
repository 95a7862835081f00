"""Running the programs under test: the kernel's resource usage per run, hyperfine for whole-command
timing, and the decoders (ffprobe, ffmpeg's SSIM and blackframe) that read their outputs."""
import json
import os
import re
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass


class BenchError(Exception):
    """A step failed; the message says which step and why, in one line (plus the tool's last output)."""


@dataclass(frozen=True)
class Usage:
    """One process's cost, from wait4(2): wall seconds, CPU seconds, peak RSS (KiB), exit status."""
    wall: float
    user: float
    sys: float
    maxrss_kib: int
    code: int = 0

    @property
    def cpu(self):
        return self.user + self.sys

    def as_dict(self):
        return {"wall": self.wall, "user": self.user, "sys": self.sys, "maxrss_kib": self.maxrss_kib}


def tail(path, lines=15):
    try:
        with open(path, "rb") as f:
            text = f.read()[-8000:].decode(errors="replace").replace("\r", "\n")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


def run(argv, *, timeout, log, stdin=None, stdout=None, cwd=None, check=True):
    """Runs argv to completion and returns its Usage; raises BenchError on a non-zero exit (unless
    `check` is false: then the Usage holds the exit status) or when it outlives `timeout` seconds
    (then its process group gets SIGTERM, and SIGKILL 10 s later). stderr goes to `log`; stdout to
    the file `stdout` (or to `log`); stdin from the file `stdin`."""
    argv = [str(a) for a in argv]
    with open(log, "wb") as err, \
            (open(stdout, "wb") if stdout else open(os.devnull, "wb")) as out, \
            (open(stdin, "rb") if stdin else open(os.devnull, "rb")) as inp:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=inp, stdout=out if stdout else err, stderr=err, cwd=cwd,
                                start_new_session=True)
        timed_out = threading.Event()

        def stop(sig):
            timed_out.set()
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass
        timers = [threading.Timer(timeout, stop, (signal.SIGTERM,)), threading.Timer(timeout + 10, stop, (signal.SIGKILL,))]
        for t in timers:
            t.daemon = True
            t.start()
        try:
            _, status, ru = os.wait4(proc.pid, 0)
        finally:
            for t in timers:
                t.cancel()
        wall = time.perf_counter() - started
        proc.returncode = code = os.waitstatus_to_exitcode(status)  # reaped here: keep Popen from waiting again
    if timed_out.is_set():
        raise BenchError(f"{shlex.join(argv)}: still running after {timeout} s\n{tail(log)}")
    if code != 0 and check:
        raise BenchError(f"{shlex.join(argv)}: exit {code}\n{tail(log)}")
    return Usage(wall, ru.ru_utime, ru.ru_stime, ru.ru_maxrss, code)


def output(argv, timeout=120, env=None):
    """stdout of a short command (a version, a probe), stripped; BenchError if it fails. `env`:
    variables added to this process's environment for it."""
    try:
        done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **env} if env else None)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BenchError(f"{shlex.join(map(str, argv))}: {e}") from e
    if done.returncode != 0:
        raise BenchError(f"{shlex.join(map(str, argv))}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout.strip()


def hyperfine(commands, *, runs, warmup, export, log, prepare=None, timeout_each=30, ignore_failure=False):
    """Times each command (name → argv) with hyperfine, `runs` times after `warmup` runs, with no
    shell in between. `prepare` (name → argv, for every command) runs before each of its runs,
    untimed. Returns name → {"times": [s…], "user": mean s, "system": mean s, "exit_codes": […]}.
    A timed run that exits non-zero is an error, unless `ignore_failure` (a tool that fails on some
    of its files and says so in its status)."""
    argv = ["hyperfine", "--shell=none", "--style", "basic", "--runs", str(runs), "--warmup", str(warmup),
            "--export-json", export] + (["--ignore-failure"] if ignore_failure else [])
    for name, argv_ in commands.items():
        argv += ["--command-name", shlex.join(map(str, argv_)), shlex.join(map(str, argv_))]
        if prepare:
            argv += ["--prepare", shlex.join(map(str, prepare[name]))]
    run(argv, timeout=60 + timeout_each * (runs + warmup) * len(commands), log=log)
    with open(export) as f:
        results = json.load(f)["results"]
    if len(results) != len(commands):
        raise BenchError(f"hyperfine reported {len(results)} commands of {len(commands)}")
    out = {}
    for name, r in zip(commands, results):
        if not ignore_failure and any(code != 0 for code in r.get("exit_codes", [])):
            raise BenchError(f"{r['command']}: a timed run failed (exit codes {r['exit_codes']})")
        out[name] = {"times": r["times"], "user": r["user"], "system": r["system"], "exit_codes": r.get("exit_codes", [])}
    return out


def probe(path, entries, stream="v:0"):
    """ffprobe's CSV answer for `entries` (stream=… or format=…) of a file."""
    argv = ["ffprobe", "-v", "error", "-show_entries", entries, "-of", "csv=p=0:s=x", path]
    if stream and entries.startswith("stream="):
        argv[3:3] = ["-select_streams", stream]
    return output(argv)


def video_packets(path):
    return int(output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets",
                       "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", path]))


def video_kbps(path):
    rate = probe(path, "stream=bit_rate")
    return round(int(rate) / 1000) if rate.isdigit() else None


def ssim(encoded, reference):
    """ffmpeg's SSIM ("All") of a file against the reference it was encoded from."""
    done = subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-i", encoded, "-i", reference, "-lavfi", "ssim",
                           "-f", "null", "-"], capture_output=True, text=True, timeout=900)
    found = re.findall(r"SSIM .*All:([0-9.]+)", done.stderr)
    if done.returncode != 0 or not found:
        raise BenchError(f"ffmpeg ssim of {encoded}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return float(found[-1])


def black_frames(path, amount=98, threshold=32):
    """Frames ffmpeg's blackframe filter calls black (`amount` % of pixels below `threshold`)."""
    done = subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-i", path, "-vf",
                           f"blackframe=amount={amount}:threshold={threshold}", "-f", "null", "-"],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise BenchError(f"ffmpeg blackframe of {path}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return sum(1 for line in done.stderr.splitlines() if "blackframe" in line)
