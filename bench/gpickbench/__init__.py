"""gpick's benchmark: runs gpick against reference tools and writes bench/RESULTS.md.

Layers: `measure` and `machine` run programs and read the machine; `events` reads gpick's JSON
event streams; `scenarios` are the six benchmarks, each returning plain data; `report` turns that
data into pass/fail checks and markdown, with no I/O (it is what the unit tests cover).
"""
