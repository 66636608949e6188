"""Pillow's side of bench-gif: every frame of an animated GIF composited to RGBA, in process.

    python pillow_gif.py ITERATIONS FILE

Each run opens the bytes from memory and, for every frame, seek(i) + convert("RGBA") (the
composited full canvas, as REFERENCE-ANIM.tsv decodes it). Prints: median seconds, frames.
One warm-up run is not timed.
"""
import io
import statistics
import sys
import time

from PIL import Image


def decode(data):
    image = Image.open(io.BytesIO(data))
    frames = 0
    for index in range(image.n_frames):
        image.seek(index)
        image.convert("RGBA")
        frames += 1
    return frames


def main():
    iterations = int(sys.argv[1])
    with open(sys.argv[2], "rb") as f:
        data = f.read()
    frames = decode(data)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        decode(data)
        times.append(time.perf_counter() - start)
    print(f"{statistics.median(times)}\t{frames}")


main()
