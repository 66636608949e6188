#!/usr/bin/env bash
# Runs the whole test suite (installing missing system packages first).
# Test targets run in groups, one process each: the codec suites keep both cores busy with
# synchronous decoding, which would starve the kernel's timing-sensitive concurrency tests of
# executor threads if they shared a process.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
swift build --build-tests "$@"
groups=(
  'ImageKernelTests|LoaderFileTests|ImageKernelConformanceTests|imagekernelTests'
  'CoderPNGTests'
  'CoderJPEGTests'
  'CacheDiskTests'
  'LoaderHTTPTests'
)
status=0
for group in "${groups[@]}"; do
  echo "== swift test --filter '$group'"
  swift test --skip-build --filter "$group" "$@" || status=1
done
exit $status
