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
