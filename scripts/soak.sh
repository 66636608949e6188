#!/usr/bin/env bash
# The fault soak: builds imagekernel-soak and runs it for MINUTES (default 2; it stops by itself).
# A local server answers at random with resets and drops mid-body, stalls, 4xx/5xx, wrong
# Content-Lengths, endless bodies, slowloris trickles, redirect loops, garbage status lines, a
# 1 MiB header, or a valid image; the manager loads through it with random cancels and thumbnail
# sizes into a 5 MB disk cache. It fails on a crash, a hang (the run is bounded by a timeout), a
# load completing other than once, a disk-cache hit that differs from the origin, or open files
# or resident memory not back within 10 % of their level after a warm-up quarter of the run.
# Usage: scripts/soak.sh [MINUTES] [--seed S]
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-2}
shift || true
bash scripts/deps.sh
swift build --product imagekernel-soak >&2
bin=$(swift build --show-bin-path)
seconds=$(python3 -c "print(int(float('$minutes') * 60))")
# Two malloc arenas: with one per thread (the test server runs a thread per connection) freed
# memory stays fragmented across arenas and the resident set creeps although nothing leaks.
export MALLOC_ARENA_MAX=2
# A soak that hangs is a failure: it gets its run time plus two minutes.
timeout --signal=KILL $(( seconds + 120 )) "$bin/imagekernel-soak" --seconds "$seconds" "$@"
