"""The benchmarks, in the order they run. Each `run(bench)` returns plain data (JSON-able) that
`report` checks against the targets."""
from . import flips, live, memory, record, session, snap, terminal

ALL = {
    "snap": snap.run,
    "record": record.run,
    "memory": memory.run,
    "session": session.run,
    "live": live.run,
    "flips": flips.run,
    "terminal": terminal.run,
}
