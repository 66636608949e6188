#!/usr/bin/env bash
# Runs the whole test suite (installing missing system packages first).
# Test targets run in groups, one process each: the codec suites keep both cores busy with
# synchronous decoding, which would starve the kernel's timing-sensitive concurrency tests of
# executor threads if they shared a process. The 10,000-load storms (StressTests) run alone for
# the same reason, and so do the CLI tests, whose child processes keep both cores busy: beside
# them (most of all under --sanitize=thread) the conformance suites' deadlines would measure the
# neighbours, not the plugin. The JPEG, PNG, HEIF and WebP peak-memory tests measure the process's
# resident set, so each runs alone (PNGPeakMemoryTests runs only when a filter names it).
# QueueCLITests (imagekernel queue) run worker processes against rate-limited origins and measure
# the rate at the origin, so they run alone too.
# CacheRedisTests start their own redis-server processes and kill and restart them, so they run
# as their own group; the cluster failover runs (ClusterFailoverTests: six redis-server processes,
# paced loads while a master is killed, failed over or resharded) measure miss windows and run alone.
# FleetCoalescerTests (leases on a shared Redis Cluster, renewed from the thread pool while a
# holder works) run alone so that no neighbour holds the pool past a lease's time.
# LoaderS3Tests and CacheS3Tests each start one Ceph RADOS Gateway (monitor, memstore OSD,
# radosgw) per process; CacheS3Tests stop and restart its gateway, so they run alone.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# How long each step took, printed at the end (and written to $TEST_TIMINGS for .ci/run's summary).
step_timings=()
step_start=$SECONDS
step_done() { step_timings+=("$(( SECONDS - step_start ))s	$1"); step_start=$SECONDS; }
swift build --build-tests "$@"
step_done "main package: build with tests"
memory_test='thumbnailPeakMemoryIsFarBelowFullDecode'
webp_memory_test='webpThumbnailPeakMemoryIsFarBelowFullDecode'
groups=(
  "--filter ImageKernelTests|LoaderFileTests|ImageKernelConformanceTests|DigestsTests --skip StressTests"
  "--filter StressTests"
  "--filter imagekernelTests --skip QueueCLITests"
  "--filter QueueCLITests"
  "--filter CoderPNGTests"
  "--filter CoderJPEGTests --skip $memory_test"
  "--filter $memory_test"
  "--filter PNGPeakMemoryTests"
  "--filter CoderHEIFTests --skip HEIFPeakMemoryTests"
  "--filter HEIFPeakMemoryTests"
  "--filter CoderWebPTests --skip $webp_memory_test"
  "--filter $webp_memory_test"
  "--filter CoderGIFTests"
  "--filter CoderBMPTests"
  "--filter CoderTIFFTests --skip TIFFPeakMemoryTests"
  "--filter TIFFPeakMemoryTests"
  "--filter CoderJXLTests --skip JXLPeakMemoryTests"
  "--filter JXLPeakMemoryTests"
  "--filter CoderSVGTests"
  "--filter ColorLCMSTests"
  "--filter CacheDiskTests"
  "--filter TransformersTests"
  "--filter CacheRedisTests --skip ClusterFailoverTests|FleetCoalescerTests"
  "--filter FleetCoalescerTests"
  "--filter ClusterFailoverTests"
  "--filter LoaderHTTPTests"
  "--filter LoaderS3Tests --skip S3PeakMemoryTests"
  "--filter S3PeakMemoryTests"
  "--filter CacheS3Tests"
)
status=0
failures=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# A watchdog per group: a test that hangs (a gate never opened, a child never reaped) fails its
# group after GROUP_TIMEOUT seconds, named so in the summary, instead of eating CI's budget.
# The slowest group takes about 4 minutes here.
group_timeout=${GROUP_TIMEOUT:-900}
# run_group LABEL COMMAND...: runs one group under the watchdog; on failure, adds LABEL and the
# failing tests and their recorded issues to the summary repeated at the end.
run_group() {
  local label=$1; shift
  local ran=0
  timeout -k 30 "$group_timeout" "$@" 2>&1 | tee "$log" || ran=${PIPESTATUS[0]}
  [ "$ran" -eq 0 ] && return 0
  status=1
  if [ "$ran" -eq 124 ] || [ "$ran" -eq 137 ]; then
    failures+=("group: $label: stopped after ${group_timeout} s (a test hung; its output above may end early, as the runner buffers it)")
  fi
  failures+=("group: $label")
  while IFS= read -r line; do failures+=("  $line"); done < <(grep -E '✘|recorded an issue|error:|Fatal error|unexpected signal' "$log" | head -40)
}
for group in "${groups[@]}"; do
  echo "== swift test $group"
  # shellcheck disable=SC2086  # each group is a list of arguments
  run_group "$group" swift test --skip-build $group "$@"
done
step_done "main package: ${#groups[@]} test groups"
# The service's package (ImageProxy: its own package, so Hummingbird is built for it only) in
# release: the image proxy's tests run real renders, which take seconds each unoptimised. Its tests
# start the built image-proxy, nginx and (for the gallery) headless Chromium.
echo "== swift build -c release --package-path ImageProxy --build-tests"
if swift build -c release --package-path ImageProxy --build-tests; then
  step_done "ImageProxy: release build with tests"
  echo "== swift test -c release --package-path ImageProxy"
  run_group "ImageProxy (image-proxy)" swift test -c release --package-path ImageProxy --skip-build
else
  status=1
  failures+=("the ImageProxy package did not build")
fi
step_done "ImageProxy: tests"
# The examples (their own package): they build, and the third-party coder example passes the
# conformance suite it shows. Built in release into ImageProxy's build folder, whose library
# modules it shares (the same non-root flags), so only the examples and the conformance module
# are compiled here, not the library a third time.
examples=(-c release --package-path Examples --scratch-path ImageProxy/.build)
echo "== swift build ${examples[*]} && swift run custom-coder"
if ! { swift build "${examples[@]}" && swift run --skip-build "${examples[@]}" custom-coder; }; then
  status=1
  failures+=("the Examples package did not build or custom-coder failed")
fi
step_done "Examples: build and custom-coder"
echo "== test steps:"
printf '   %s\n' "${step_timings[@]}"
if [ -n "${TEST_TIMINGS:-}" ]; then printf '%s\n' "${step_timings[@]}" > "$TEST_TIMINGS"; fi
if [ $status -ne 0 ]; then
  echo "== FAILED"
  printf '%s\n' "${failures[@]}"
  # .ci/run repeats this summary at its very end, after the later stages' output.
  if [ -n "${TEST_FAILURE_SUMMARY:-}" ]; then printf '%s\n' "${failures[@]}" > "$TEST_FAILURE_SUMMARY"; fi
fi
exit $status
