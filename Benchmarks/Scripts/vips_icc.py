"""libvips 8.18's side of bench-color: icc_transform of raw RGB pixels tagged with a profile, in process.

    python vips_icc.py ITERATIONS RAW WIDTH HEIGHT PROFILE

Converts the pixels from the embedded profile to sRGB (relative colorimetric, black-point
compensation, as libvips' defaults with `embedded=True`) and writes them to memory; one warm-up
run is not timed. Prints `median seconds<TAB>vips version`.
"""
import statistics
import sys
import time

import pyvips

pyvips.cache_set_max(0)  # no answers from vips' operation cache
iterations, raw, width, height, profile = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
data = open(raw, "rb").read()
icc = open(profile, "rb").read()


def run():
    image = pyvips.Image.new_from_memory(data, width, height, 3, "uchar").copy()
    image.set_type(pyvips.GValue.blob_type, "icc-profile-data", icc)
    out = image.icc_transform("srgb", embedded=True, intent="relative", black_point_compensation=True)
    return out.write_to_memory()


run()
samples = []
for _ in range(iterations):
    start = time.perf_counter()
    run()
    samples.append(time.perf_counter() - start)
print(f"{statistics.median(samples)}\t{pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}")
