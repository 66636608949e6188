#!/usr/bin/env bash
# Builds the DocC documentation of the ImageKernel target (Sources/ImageKernel/ImageKernel.docc and
# the `///` comments) with swift-docc-plugin into .build/docs/ImageKernel (a .doccarchive; set
# IMAGEKERNEL_DOCS_OUT to write elsewhere). docc's warnings (broken ``symbol`` links, unknown
# parameters, curation problems) appear in the log; the last line counts them, with any compiler
# warning of the ImageKernel build. The script fails when the build or docc fails, not on warnings.
# Usage: scripts/docs.sh [extra generate-documentation options, e.g. --transform-for-static-hosting]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${IMAGEKERNEL_DOCS_OUT:-.build/docs/ImageKernel}
mkdir -p "$out"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
status=0
swift package --allow-writing-to-directory "$out" \
  generate-documentation --target ImageKernel --output-path "$out" --disable-indexing "$@" 2>&1 \
  | tee "$log" || status=$?
# docc prints each problem as "<file>:<line>:<column>: warning: ..." (or "warning: ..." without a location).
warnings=$(grep -cE '(^|: )warning: ' "$log" || true)
if [ $status -ne 0 ]; then
  echo "== docs FAILED (exit $status) after $((SECONDS - start)) s; $warnings warning(s)"
  exit $status
fi
echo "== docs: $out in $((SECONDS - start)) s; $warnings warning(s)"
