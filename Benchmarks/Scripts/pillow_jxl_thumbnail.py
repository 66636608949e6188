"""The peer of bench-jxl's thumbnail: Pillow with pillow-jxl-plugin (libjxl 0.12) in process.

    python pillow_jxl_thumbnail.py ITERATIONS FILE SIZE

Prints `median seconds<TAB>width<TAB>height` of opening the bytes, `draft()` (the plugin has
none: a no-op) and `thumbnail((SIZE, SIZE))` with Pillow's default (reducing_gap 2.0, the
fastest Pillow offers); one warm-up run is not timed.
"""
import io
import statistics
import sys
import time

from PIL import Image
import pillow_jxl  # noqa: F401  (registers the JPEG XL plugin)

iterations, path, size = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
data = open(path, "rb").read()


def once():
    image = Image.open(io.BytesIO(data))
    image.draft("RGB", (size, size))
    image.thumbnail((size, size))
    return image


once()
times = []
for _ in range(iterations):
    start = time.perf_counter()
    image = once()
    times.append(time.perf_counter() - start)
print(f"{statistics.median(times)}\t{image.width}\t{image.height}")
