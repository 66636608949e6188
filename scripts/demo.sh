#!/usr/bin/env bash
# The main job on the bundled sample images: inspect them, fetch them through the manager and
# its cache, and prefetch them (installing missing system packages first).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
swift build --product imagekernel >&2
bin=.build/debug/imagekernel
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
echo "# imagekernel info Examples/images/*"
"$bin" info Examples/images/* || true
echo
echo "# imagekernel fetch (cold, then warm cache)"
"$bin" fetch --cache-dir "$cache" Examples/images/* || true
"$bin" fetch --cache-dir "$cache" Examples/images/* || true
echo
echo "# imagekernel convert (encode AVIF and HEIC, decode them back)"
"$bin" convert Examples/images/photo.jpg "$cache/photo.avif"
"$bin" convert --thumbnail 64x64 Examples/images/gradient-alpha.png "$cache/gradient-alpha.heic"
"$bin" info "$cache/photo.avif" "$cache/gradient-alpha.heic"
echo
echo "# imagekernel prefetch"
ls Examples/images/* > "$cache/list.txt"
"$bin" prefetch --cache-dir "$cache" --from "$cache/list.txt"
echo
echo "# imagekernel convert to WebP (lossy, lossless) and GIF (median-cut palette), and inspect the results"
"$bin" convert Examples/images/photo.jpg "$cache/photo.webp" --quality 80
"$bin" convert Examples/images/gradient-alpha.png "$cache/gradient-alpha.webp" --lossless
"$bin" convert Examples/images/photo.jpg "$cache/photo.gif"
"$bin" info "$cache/photo.webp" "$cache/gradient-alpha.webp" "$cache/photo.gif"
