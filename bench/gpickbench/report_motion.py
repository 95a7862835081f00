"""RESULTS.md's motion section (M1, M2)."""
from .report_realfiles import verdict
from .report_stream import by_ref


def motion(r, c):
    checks = by_ref(c, "M1") + by_ref(c, "M2")
    runs = lambda xs: ", ".join(f"{x['user'] + x['sys']:.2f}" for x in xs)  # noqa: E731
    return ["## 15. Motion detection (M1, M2)", "",
            f"`gpick watch` for {r['seconds']} s on the test source's moving ball at 1920x1080@30, against a plain "
            "session on the same source for as long; they alternate, and each side keeps its lowest-CPU run "
            f"(watch {runs(r['watch_runs'])}, plain {runs(r['plain_runs'])} CPU s). The latency is the `motion-started` "
            "event's own: from the first moving frame entering the session's outputs to the event, on the monotonic "
            "clock (two frames are needed to start, so one frame interval of it is the rule's).", "",
            "```", r["command"], "```", "",
            f"Latencies: {', '.join(f'{x:.1f}' for x in r['latency_ms'])} ms.", "",
            *[f"- {x.name}: **{x.result}** — target {x.target}: {verdict(x.ok)}" for x in checks], ""]


def watchclips(r, c):
    checks = by_ref(c, "M3")
    befores = [x["before"] for x in r["clips"] if x["before"] is not None]
    afters = [x["after"] for x in r["clips"] if x["after"] is not None]
    return ["## 15b. Motion clips (M3)", "",
            f"`gpick watch --record` for {r['seconds']} s at 1920x1080@30 on the test source, whose block moves for 3 s every "
            f"30 s ({r['motions']} motions), with --pre {r['pre']} and --post {r['post']}. RSS is read from /proc every 5 s and a "
            "line fitted from the first minute on; each clip's stamps are read back with `gpick inspect --stamps`.", "",
            "```", r["command"], "```", "",
            f"Clips start {min(befores, default=0):.2f}–{max(befores, default=0):.2f} s before their first moving frame and end "
            f"{min(afters, default=0):.2f}–{max(afters, default=0):.2f} s after their last.", "",
            *([f"RSS by kind, fitted over the same minutes: anonymous {r['anon_mib_per_hour']:+.2f} MiB/hour "
               f"({r['anon_first_mib']:.1f} → {r['anon_last_mib']:.1f} MiB), file-backed (code and libraries) "
               f"{r['file_mib_per_hour']:+.2f} MiB/hour.", ""] if "anon_mib_per_hour" in r else []),
            *[f"- {x.name}: **{x.result}** — target {x.target}: {verdict(x.ok)}" for x in checks], ""]
