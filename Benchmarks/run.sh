#!/usr/bin/env bash
# Builds the benchmarks in release mode and runs them all (or the ones named), e.g.
#   bash Benchmarks/run.sh bench-coalesce bench-grid
# Arguments after `--` go to every benchmark run (e.g. `-- --rounds 5`).
#
#   bench-jpeg      CoderJPEG decode/encode/thumbnail vs libjpeg-turbo called from C, vipsthumbnail
#   bench-png       CoderPNG decode/encode vs libpng called from C
#   bench-scaledown scaleDownLargeImages of a PNG and a JPEG at the scale-down ceiling (4 x the pixel limit)
#                   vs libpng / libjpeg-turbo full decodes of the same file and of one at the limit;
#                   per source megapixel; the refusal of a 100000x100000 header
#   bench-webp      CoderWebP still decode/encode and 50-frame animated decode vs libwebp called from C
#   bench-gif       CoderGIF animated decode vs giflib + the same compositing in C, and vs Pillow
#                   (Scripts/pillow_gif.py)
#   bench-bmp       CoderBMP decode of BMPs (24/32-bit, palette, RLE8) and ICOs vs Pillow(-SIMD) in process
#                   (Scripts/pillow_bmp.py)
#   bench-tiff      CoderTIFF 12 MP RGB decode/encode (deflate, LZW) vs libtiff called from C
#   bench-jxl       CoderJXL 12 MP RGB decode/encode (lossy, lossless) vs libjxl called from C; 256 px thumbnail
#                   of 24 MP vs Pillow + pillow-jxl-plugin in process (Scripts/pillow_jxl_thumbnail.py)
#   bench-svg       CoderSVG 256 px renders of two documents vs librsvg called from C (CBenchSVG) and vs
#                   libvips 8.18's thumbnail of the same SVG in process (Scripts/vips_thumbnail.py)
#   bench-color     ColorLCMS: a 12 MP Adobe RGB image to sRGB vs libvips 8.18's icc_transform in process
#                   (Scripts/vips_icc.py); the first call (transform build) and a 400x300 source
#   bench-disk      CacheDisk store/read vs raw files
#   bench-kernel    kernel hot paths (sniffing, memory cache, registries)
#   bench-resize    Transformers resize, blur and fill+round vs Pillow-SIMD and pyvips 8.18 in process
#                   (Scripts/peers_resize.py), ours with every core and with one thread
#   bench-smartcrop crop:W:H:smart vs libvips 8.18 smartcrop (attention) in process (Scripts/vips_smartcrop.py)
#                   on 24 scenes with a known subject off-centre: mean fraction of the subject kept, time
#   bench-heif      CoderHEIF decode/encode vs libheif called from C, stored-thumbnail decode vs full
#   bench-http      LoaderHTTP vs `curl --parallel` against nginx on 127.0.0.1
#   bench-coalesce  N = 1..1000 concurrent ImageManager loads of one 24 MP JPEG from nginx:
#                   wall(N)/wall(1), decodes, loader calls and HTTP requests (goal <= 1.3x, 1 decode)
#   bench-grid      CoderJPEG/CoderPNG thumbnail decode (boxes 32..400 and full) vs full decode and
#                   vs Pillow's draft()+thumbnail() in process (Scripts/pillow_grid.py)
#   bench-redis     CacheRedis 50 KB hits vs `redis-benchmark -t get` (p50 latency, rate with 8 in flight,
#                   goal >= 0.8x); two processes sharing Redis: second-process wall time vs the first
#   bench-s3        LoaderS3: 1,000 GETs of 50 KB objects, 8 in flight, from a Ceph RADOS Gateway on 127.0.0.1
#                   (ImageKernelTestSupport's CephRGWServer) vs boto3 with 8 threads on the same objects
#                   (Scripts/boto3_get.py; the `boto3` peer venv or python3 with boto3), goal >= 1.5x
#   bench-redis-cluster  CacheRedis 50 KB hits on a 3-master/3-replica Redis Cluster (8 in flight) vs
#                   `redis-benchmark --cluster -t get` on it (goal >= 0.8x) and vs the single-node tier (goal >= 0.9x)
#   bench-bulk      the 429 origin (200 r/s, Retry-After: 1): delivered, requests, 429s and wall time vs
#                   `curl --parallel --retry 10` and the origin's bound; prefetch of 10^4..10^6 URLs:
#                   peak RSS and images/s per size (goal: flat within 20 %)
#   bench-e2e       500 JPEGs from nginx -> 128 px thumbnails through ImageManager + TieredCache vs
#                   requests+Pillow with 6 threads (Scripts/pillow_e2e.py) and curl download only
#
# nginx (scripts/deps.sh) is needed by the HTTP benchmarks, redis-server and redis-benchmark by bench-redis; the Pillow peers come from
# `bash Benchmarks/peers/setup.sh` (Pillow-SIMD preferred, stock Pillow otherwise, or set
# IMAGEKERNEL_PILLOW_PYTHON; the Pillow venvs carry `requests` for bench-e2e). The corpora come
# from the repository's Tests/Corpora.
# Generated fixtures are kept in $TMPDIR/imagekernel-bench-fixtures-v1 between runs.
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release >&2
bins=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do bins+=("$1"); shift; done
[ $# -gt 0 ] && shift
[ ${#bins[@]} -gt 0 ] || bins=($(ls Sources | grep '^bench-'))
for b in "${bins[@]}"; do
  echo "== $b"
  ".build/release/$b" "$@"
done
