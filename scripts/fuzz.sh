#!/usr/bin/env bash
# Builds every libFuzzer target in Fuzz/ (AddressSanitizer on Swift and C, UndefinedBehaviorSanitizer
# on the C shims) and runs each for SECONDS (default 30), seeded from the corpora in Tests/Corpora, with a
# dictionary per format and Fuzz/regressions/<target>/ (every crash found, kept as a reproducer).
# New corpus entries go to a temporary directory; FUZZ_KEEP_CORPUS=1 keeps them in Fuzz/corpus/.
# A crash, a leak, a sanitizer report or a hang (an input over 10 s) fails the run; the reproducer
# is saved under Fuzz/artifacts/. Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
# FUZZ_SEED=N fixes libFuzzer's random seed (CI sets it, so a run explores the same inputs for the
# same code instead of failing on whatever a random walk meets first; longer local runs leave it
# random to search wider). FUZZ_REPLAY_ONLY="TARGET..." runs those targets on their seeds and regressions only, without
# mutating (for a target whose finding lies in a C library until the project works around it).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
bash scripts/deps.sh
flags=(-c release --scratch-path Fuzz/.build
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
  -Xcc -fsanitize=fuzzer-no-link,address,undefined -Xcc -fno-sanitize-recover=undefined)
echo "== building the fuzz targets" >&2
swift build --package-path Fuzz "${flags[@]}" >&2
bin=$(swift build --package-path Fuzz "${flags[@]}" --show-bin-path)
testdata=${IMAGEKERNEL_TESTDATA:-$PWD/Tests/Corpora}
# Leaks are failures, except those the suppressions file names (each with its reason: leaks inside
# C libraries we cannot free, such as libdav1d's on malformed AV1 data).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/sanitizers/lsan.supp:print_suppressions=0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p Fuzz/artifacts

# Seeds: files of the target's formats under 256 KiB from the test data.
seed_files() {
  case $1 in
    fuzz-png) find "$testdata" -type f -name '*.png' -size -256k ;;
    fuzz-jpeg) find "$testdata" -type f \( -name '*.jpg' -o -name '*.jpeg' \) -size -256k ;;
    fuzz-heif) find "$testdata" -type f \( -name '*.heic' -o -name '*.heif' -o -name '*.avif' \) -size -256k ;;
    fuzz-webp) find "$testdata" -type f -name '*.webp' -size -256k ;;
    fuzz-gif) find "$testdata" -type f -name '*.gif' -size -256k ;;
    fuzz-bmp) find "$testdata" -type f \( -name '*.bmp' -o -name '*.ico' -o -name '*.cur' \) -size -256k ;;
    fuzz-tiff) find "$testdata" -type f \( -name '*.tif' -o -name '*.tiff' \) -size -256k ;;
    fuzz-jxl) find "$testdata" -type f -name '*.jxl' -size -256k ;;
    fuzz-svg) find "$testdata" -type f -name '*.svg' -size -256k ;;
    fuzz-sniff) find "$testdata" -type f -size -16k | sort | sed -n 1,200p ;;
    fuzz-icc) find "$testdata" -type f \( -name '*.icc' -o -name '*.icm' \) -size -256k; find /usr/share/color/icc -type f -name '*.icc' -size -256k 2>/dev/null ;;
    *) ;;
  esac
}

# Seeds made here: valid HTTP answers and disk-cache entries around a small PNG.
make_seeds() {
  local dir=$1 png
  png=$(find "$testdata/pngsuite" -type f -name 'basn2c08.png' | head -1)
  case $(basename "$dir") in
    fuzz-http-response)
      { printf 'HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: %d\r\nETag: "v1"\r\n\r\n' "$(wc -c < "$png")"; cat "$png"; } > "$dir/ok"
      { printf 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n' "$(wc -c < "$png")"; cat "$png"; printf '\r\n0\r\n\r\n'; } > "$dir/chunked"
      printf 'HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n' > "$dir/429"
      printf 'HTTP/1.1 304 Not Modified\r\nETag: "v1"\r\n\r\n' > "$dir/304"
      { printf 'HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 10-19/100\r\nContent-Length: 10\r\n\r\n'; head -c 10 "$png"; } > "$dir/206"
      ;;
    fuzz-disk-entry)
      python3 - "$png" "$dir" <<'PY'
import struct, sys
payload = open(sys.argv[1], 'rb').read()
def entry(etag, modified):
    fields = b''
    for text in (etag, modified):
        fields += struct.pack('<I', 0xFFFFFFFF) if text is None else struct.pack('<I', len(text)) + text
    header_length = 24 + len(fields)
    return b'\x89IKCD\r\n\x1a' + struct.pack('<IIQ', header_length, 1, len(payload)) + fields + payload
open(sys.argv[2] + '/plain', 'wb').write(entry(None, None))
open(sys.argv[2] + '/validators', 'wb').write(entry(b'"abc"', b'Tue, 24 Nov 2026 00:00:00 GMT'))
open(sys.argv[2] + '/raw', 'wb').write(payload)
PY
      ;;
    fuzz-exif)
      # The EXIF blocks (APP1 after Exif\0\0) of the orientation test JPEGs, and XMP and IPTC.
      python3 - "$testdata" "$dir" <<'PY'
import glob, os, sys
for n, path in enumerate(sorted(glob.glob(sys.argv[1] + '/exif-orientation/**/*.jpg', recursive=True))[:16]):
    data = open(path, 'rb').read()
    at = data.find(b'\xff\xe1')
    if at < 0 or data[at + 4:at + 10] != b'Exif\x00\x00': continue
    length = int.from_bytes(data[at + 2:at + 4], 'big')
    open('%s/exif-%d' % (sys.argv[2], n), 'wb').write(data[at + 10:at + 2 + length])
iptc = b''.join(b'\x1c' + bytes([r, d]) + len(v).to_bytes(2, 'big') + v for r, d, v in
                [(1, 90, b'\x1b%G'), (2, 80, b'Ada'), (2, 116, b'(c) 2026'), (2, 90, b'Lisbon')])
open(sys.argv[2] + '/iptc', 'wb').write(iptc)
open(sys.argv[2] + '/xmp', 'wb').write(b'<x:xmpmeta><rdf:RDF><rdf:Description xmpRights:Marked="True" tiff:Orientation="6">'
    b'<dc:rights><rdf:Alt><rdf:li>(c)</rdf:li></rdf:Alt></dc:rights><dc:creator/></rdf:Description></rdf:RDF></x:xmpmeta>')
PY
      ;;
    fuzz-transform-spec)
      printf 'orient/resize:fill:300:200/round:12' > "$dir/chain"
      printf 'resize:fit:64:48:lanczos3/blur:2/sharpen:1/gray' > "$dir/effects"
      printf 'crop:10:10:4:4/rotate:33:ff000080/flip:h/tint:00ff0040/circle' > "$dir/geometry"
      printf 'trim:10/crop:6:6:smart/resize:fill:5:5:fp:0.3:0.7/pad:1:2:3:4:ff0000/dpr:1.5' > "$dir/placement"
      printf 'resize:fit:8:8/extend:sowe/background:ffffff/watermark:0.5:re:0.3' > "$dir/canvas"
      ;;
    fuzz-proxy-path)
      printf '/unsafe/orient/resize:fill:300:200/q:80/plain/http%%3A%%2F%%2F127.0.0.1%%3A8080%%2Fa.jpg@webp' > "$dir/plain"
      printf '/unsafe/resize:fit:64:64/aHR0cHM6Ly9jZG4uZXhhbXBsZS5jb20vaW1hZ2VzL2NhdC5wbmc.avif' > "$dir/base64"
      printf '/lGUqI4JvQjcBfombObcTQVe5wwsQtatggfrRKvi_pXg/f:png/plain/http://rebound.example.com/x.png' > "$dir/signed"
      printf '/unsafe/preset:card/progressive/max_bytes:5000/fn:caf%%C3%%A9/att/plain/local%%3A%%2F%%2F%%2Fsub%%2Fa.jpg' > "$dir/local"
      printf '/unsafe/pr:thumb:dl/plain/local:///escape@png' > "$dir/presets"
      ;;
    fuzz-imgproxy-path)
      printf '/unsafe/rs:fill:300:200:1:1/g:sm/q:80/plain/http%%3A%%2F%%2F127.0.0.1%%3A8080%%2Fa.jpg@webp' > "$dir/plain"
      printf '/unsafe/w:5/h:4/dpr:2/z:1.5:0.5/mw:3/c:0.5:0.5:nowe:1:2/ex:1:so/exar:1/pd:1:2:3:4/aHR0cDovL2V4YW1w/bGUuY29tL2EucG5n.png' > "$dir/base64"
      printf '/unsafe/pr:card/t:10:ff0000:1:1/rot:90/fl:1:0/bg:fff/bl:1/sh:1/pix:2/mrd:8/exp:4102444800/cb:x/fn:a/att:1/plain/http://a/b' > "$dir/options"
      printf '/unsafe/rs:fit:9223372036854775807:1/el:1/g:fp:0.5:0.5/plain/http://a/b' > "$dir/huge"
      ;;
  esac
}

dictionary() {
  case $1 in
    fuzz-png) echo png ;; fuzz-jpeg) echo jpeg ;; fuzz-heif) echo heif ;; fuzz-webp) echo webp ;;
    fuzz-gif) echo gif ;; fuzz-bmp) echo bmp ;; fuzz-http-response) echo http ;; fuzz-disk-entry) echo disk-entry ;;
    fuzz-tiff) echo tiff ;; fuzz-jxl) echo jxl ;; fuzz-svg) echo svg ;;
    fuzz-transform-spec) echo transform-spec ;; fuzz-proxy-path) echo proxy-path ;; fuzz-imgproxy-path) echo imgproxy-path ;; fuzz-icc) echo icc ;; fuzz-exif) echo exif ;; *) echo "" ;;
  esac
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz-png fuzz-jpeg fuzz-heif fuzz-webp fuzz-gif fuzz-bmp fuzz-tiff fuzz-jxl fuzz-svg fuzz-sniff fuzz-disk-entry fuzz-http-response
  fuzz-transform-spec fuzz-proxy-path fuzz-imgproxy-path fuzz-icc fuzz-exif)
status=0
results=()
for target in "${targets[@]}"; do
  seeds="$work/seeds/$target"
  corpus="$work/corpus/$target"
  [ "${FUZZ_KEEP_CORPUS:-0}" = 1 ] && corpus="Fuzz/corpus/$target"
  mkdir -p "$seeds" "$corpus" "Fuzz/regressions/$target"
  seed_files "$target" | while IFS= read -r file; do cp "$file" "$seeds/$(echo "$file" | md5sum | cut -c1-12)-$(basename "$file")"; done
  make_seeds "$seeds"
  args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1
    -artifact_prefix="Fuzz/artifacts/$target-")
  [ -n "${FUZZ_SEED:-}" ] && args+=(-seed="$FUZZ_SEED")
  mode=fuzzed
  if [[ " ${FUZZ_REPLAY_ONLY:-} " == *" $target "* ]]; then args+=(-runs=0); mode=replayed; fi
  dict=$(dictionary "$target")
  [ -n "$dict" ] && args+=(-dict="Fuzz/dictionaries/$dict.dict")
  echo "== $target: $mode for up to ${seconds}s ($(ls "$seeds" | wc -l) seeds)" >&2
  log="$work/$target.log"
  if "$bin/$target" "${args[@]}" "$corpus" "$seeds" "Fuzz/regressions/$target" > "$log" 2>&1; then
    outcome=ok
  else
    outcome=FAILED
    status=1
    # The report with its stacks, or the log's end when there is no sanitizer report.
    if grep -q "ERROR:" "$log"; then sed -n '/ERROR:/,/SUMMARY:/p' "$log" | head -80 >&2; else tail -30 "$log" >&2; fi
    grep -E "Test unit written" "$log" >&2 || true
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  results+=("$target	${seconds}	${runs:-0}	${rate:-0}	$outcome	$mode")
done
printf 'target\tseconds\texecutions\texecutions_per_second\tresult\tmode\n'
printf '%s\n' "${results[@]}"
[ $status -eq 0 ] || echo "fuzzing found a crash, leak, sanitizer report or hang; reproducers are in Fuzz/artifacts/" >&2
exit $status
