#!/usr/bin/env bash
# Builds the benchmarks in release mode and runs them all (or the ones named).
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release >&2
bins=("$@")
[ ${#bins[@]} -gt 0 ] || bins=($(ls Sources | grep '^bench-'))
for b in "${bins[@]}"; do
  echo "== $b"
  ".build/release/$b"
done
