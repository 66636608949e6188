"""libvips 8.18's side of bench-smartcrop: smartcrop(interesting=attention) of raw RGB scenes, in process.

    python vips_smartcrop.py ITERATIONS MANIFEST

MANIFEST has one scene a line: `RAW<TAB>WIDTH<TAB>HEIGHT<TAB>WINDOW_WIDTH<TAB>WINDOW_HEIGHT`. For
each, the crop's pixels are made in memory (one warm-up run is not timed), and a line
`left<TAB>top<TAB>median seconds<TAB>vips version` is printed.
"""
import statistics
import sys
import time

import pyvips

pyvips.cache_set_max(0)  # no answers from vips' operation cache
iterations, manifest = int(sys.argv[1]), sys.argv[2]
version = f"{pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}"
for line in open(manifest).read().splitlines():
    raw, width, height, window_width, window_height = line.split("\t")
    width, height, window_width, window_height = int(width), int(height), int(window_width), int(window_height)
    data = open(raw, "rb").read()

    def run():
        image = pyvips.Image.new_from_memory(data, width, height, 3, "uchar")
        out = image.smartcrop(window_width, window_height, interesting="attention")
        out.write_to_memory()
        return -out.xoffset, -out.yoffset

    left, top = run()
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    print(f"{left}\t{top}\t{statistics.median(samples)}\t{version}")
