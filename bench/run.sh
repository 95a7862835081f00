#!/bin/sh
# Benchmarks the release build against reference tools and writes bench/RESULTS.md (see
# bench/gpickbench; `bench/run.sh --help` lists the options). `make bench` builds first.
cd "$(dirname "$0")/.." || exit 1
PYTHONPATH=bench exec python3 -m gpickbench "$@"
