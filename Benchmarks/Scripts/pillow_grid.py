"""Pillow's side of bench-grid: thumbnail and full decodes timed in process, from bytes in memory.

    python pillow_grid.py ITERATIONS FILE BOX [BOX ...]

BOX 0 means full size (open + load()); any other BOX means open + draft("RGB", (BOX, BOX)) +
thumbnail((BOX, BOX)) + load() (draft does nothing for PNG; load() makes sure a cell whose box
already holds the image still decodes it). Prints one tab-separated line per box:
box, median seconds, output width, output height. One warm-up run per box is not timed.
"""
import io
import statistics
import sys
import time

from PIL import Image


def decode(data, box):
    image = Image.open(io.BytesIO(data))
    if box:
        image.draft("RGB", (box, box))
        image.thumbnail((box, box))
    image.load()
    return image


def main():
    iterations = int(sys.argv[1])
    with open(sys.argv[2], "rb") as f:
        data = f.read()
    for box in map(int, sys.argv[3:]):
        image = decode(data, box)
        samples = []
        for _ in range(iterations):
            start = time.perf_counter()
            decode(data, box)
            samples.append(time.perf_counter() - start)
        print(f"{box}\t{statistics.median(samples):.9f}\t{image.width}\t{image.height}", flush=True)


if __name__ == "__main__":
    main()
