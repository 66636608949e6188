#!/usr/bin/env bash
# Runs test groups under a sanitizer, each in its own build folder:
#   address  AddressSanitizer on Swift and the C shims (LeakSanitizer included: a leak fails the
#            group), plus UndefinedBehaviorSanitizer on the C shims (Swift checks its own
#            arithmetic and bounds; swiftc has no -sanitize=undefined on Linux)
#   thread   ThreadSanitizer on Swift and C
# Usage: scripts/sanitize.sh address|thread [--package DIR] [GROUP...]   (a GROUP is one string
# of swift test arguments, as in scripts/test.sh: "--filter CoderPNGTests" or "--filter X --skip
# Y"; without one, every test target runs, each in its own process). --package ImageProxy runs the
# groups of that package instead (its own build folder inside it).
# Peak-memory tests skip themselves under a sanitizer (its allocator makes RSS meaningless).
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: scripts/sanitize.sh address|thread [--package DIR] [GROUP...]}
shift
package=()
if [ "${1:-}" = "--package" ]; then
  package=(--package-path "${2:?--package takes a folder}")
  shift 2
fi
bash scripts/deps.sh
case $kind in
  address)
    scratch=.build-asan
    flags=(--sanitize=address -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined)
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=0}
    export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/sanitizers/lsan.supp:print_suppressions=0}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    ;;
  thread)
    scratch=.build-tsan
    flags=(--sanitize=thread)
    export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0:second_deadlock_stack=1}
    ;;
  *) echo "unknown sanitizer '$kind' (address or thread)" >&2; exit 2 ;;
esac
[ ${#package[@]} -eq 0 ] || scratch="${package[1]}/$scratch"
groups=("$@")
if [ ${#groups[@]} -eq 0 ] && [ ${#package[@]} -eq 0 ]; then
  groups=(
    "--filter ImageKernelTests|LoaderFileTests|ImageKernelConformanceTests --skip StressTests"
    "--filter StressTests" "--filter CoderPNGTests" "--filter CoderJPEGTests" "--filter CoderHEIFTests"
    "--filter CoderWebPTests" "--filter CoderGIFTests" "--filter CacheDiskTests" "--filter CacheRedisTests"
    "--filter LoaderHTTPTests" "--filter imagekernelTests"
  )
fi
[ ${#groups[@]} -gt 0 ] || groups=("")
swift build "${package[@]}" --build-tests --scratch-path "$scratch" "${flags[@]}"
status=0
failed=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for group in "${groups[@]}"; do
  echo "== $kind sanitizer: swift test $group"
  # shellcheck disable=SC2086  # each group is a list of arguments
  if ! swift test "${package[@]}" --skip-build --scratch-path "$scratch" "${flags[@]}" $group 2>&1 | tee "$log"; then
    status=1
    failed+=("$group")
  fi
  if grep -qE "^(==[0-9]+==ERROR|WARNING: ThreadSanitizer|SUMMARY: (Address|Undefined|Thread|Leak)Sanitizer)|runtime error:" "$log"; then
    status=1
    failed+=("$group (sanitizer report)")
  fi
done
if [ $status -ne 0 ]; then
  echo "== FAILED under the $kind sanitizer"
  printf '  %s\n' "${failed[@]}"
fi
exit $status
