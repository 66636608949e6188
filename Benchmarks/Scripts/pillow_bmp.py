"""Pillow's side of bench-bmp: decode a BMP or ICO from memory to the mode CoderBMP returns.

    python pillow_bmp.py ITERATIONS MODE FILE

Each run opens the bytes from memory, loads them (for an ICO, the entry Pillow picks: the
largest) and converts to MODE (RGB or RGBA) when Pillow's own mode differs (palette files
decode to P, which CoderBMP expands), so both sides produce the same pixels. Prints the median
seconds. One warm-up run is not timed.
"""
import io
import statistics
import sys
import time

from PIL import Image


def decode(data, mode):
    image = Image.open(io.BytesIO(data))
    image.load()
    if image.mode != mode:
        image = image.convert(mode)
    return image


def main():
    iterations = int(sys.argv[1])
    mode = sys.argv[2]
    with open(sys.argv[3], "rb") as f:
        data = f.read()
    decode(data, mode)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        decode(data, mode)
        times.append(time.perf_counter() - start)
    print(f"{statistics.median(times)}")


main()
