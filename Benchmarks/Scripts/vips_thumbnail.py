"""The peer of bench-tiff's thumbnail: libvips' thumbnail of an encoded file in memory, in process.

    python vips_thumbnail.py ITERATIONS FILE SIZE

Prints `median seconds<TAB>width<TAB>height` of `pyvips.Image.thumbnail_buffer(bytes, SIZE)`
with the pixels written to memory (so the whole pipeline runs); one warm-up run is not timed.
"""
import statistics
import sys
import time

import pyvips

iterations, path, size = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
data = open(path, "rb").read()


def once():
    image = pyvips.Image.thumbnail_buffer(data, size)
    image.write_to_memory()
    return image


once()
times = []
for _ in range(iterations):
    start = time.perf_counter()
    image = once()
    times.append(time.perf_counter() - start)
print(f"{statistics.median(times)}\t{image.width}\t{image.height}")
