#!/usr/bin/env python3
"""Makes pillow-resize.bin/.tsv (8-bit L, RGB, RGBA) and pillow-resize16.bin/.tsv (16-bit gray,
I;16): Pillow's resize of the synthetic test images.

Run with a Python that has Pillow (the references were made with Pillow 13 from
~/.cache/imagekernel-peers/pillow/bin/python):

    python make_references.py

The inputs are not stored: ResizeReferenceTests.swift computes the same pixels with the same
formula (`sample` below). Each case appends Pillow's output bytes to the .bin file and a line
`name mode filter src_w src_h out_w out_h offset length` to the .tsv file.
"""
import os
import PIL
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
CHANNELS = {"L": 1, "RGB": 3, "RGBA": 4}
FILTERS = {"box": Image.Resampling.BOX, "bilinear": Image.Resampling.BILINEAR,
           "bicubic": Image.Resampling.BICUBIC, "lanczos3": Image.Resampling.LANCZOS}
CASES = [  # name, source size, output size
    ("down", (41, 29), (17, 11)),
    ("down-large", (203, 151), (64, 47)),
    ("up", (41, 29), (67, 53)),
    ("mixed", (41, 29), (60, 13)),
    ("one-pixel-up", (1, 1), (5, 3)),
    ("to-one-pixel", (7, 5), (1, 1)),
    ("column", (1, 9), (3, 4)),
]


def sample(x, y, c, w, h, channels):
    """Gradients with hard edges and a little noise; alpha (last of 4) has transparent and opaque parts."""
    if channels == 4 and c == 3:
        if y % 7 == 0:
            return 255
        if x < w // 5:
            return 0
        return min(255, (x - w // 5) * 255 // max(1, w // 2))
    base = (x * 255 // max(1, w - 1)) * (c + 1) + (y * 255 // max(1, h - 1)) * (3 - c)
    edge = 96 if ((x // 5) + (y // 3)) % 2 else 0
    noise = ((x * 7919 + y * 104729 + c * 1299709) ^ (x * y)) % 17
    return (base + edge + noise) % 256


def pixels(w, h, channels):
    return bytes(sample(x, y, c, w, h, channels) for y in range(h) for x in range(w) for c in range(channels))


def sample16(x, y, w, h):
    """16-bit gray: the 8-bit gray pattern in the high byte, a second pattern in the low byte."""
    return sample(x, y, 0, w, h, 1) * 256 + (x * 37 + y * 101) % 256


def pixels16(w, h):
    """Little-endian, as Pillow's I;16 (and ImageKernel's host order on x86-64 and arm64)."""
    return b"".join(sample16(x, y, w, h).to_bytes(2, "little") for y in range(h) for x in range(w))


def main():
    blob = bytearray()
    lines = ["# Pillow %s: Image.frombytes(mode, size, pixels).resize(out, filter)" % PIL.__version__,
             "# name\tmode\tfilter\tsrc_w\tsrc_h\tout_w\tout_h\toffset\tlength"]
    for name, (sw, sh), (ow, oh) in CASES:
        for mode, channels in CHANNELS.items():
            source = Image.frombytes(mode, (sw, sh), pixels(sw, sh, channels))
            for filter_name, resample in FILTERS.items():
                out = source.resize((ow, oh), resample).tobytes()
                lines.append("\t".join(map(str, [name, mode, filter_name, sw, sh, ow, oh, len(blob), len(out)])))
                blob += out
    with open(os.path.join(HERE, "pillow-resize.bin"), "wb") as f:
        f.write(blob)
    with open(os.path.join(HERE, "pillow-resize.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    # 16-bit gray (Pillow resizes I;16 with its 16-bit path): pillow-resize16.bin/.tsv.
    blob = bytearray()
    lines = lines[:2]
    for name, (sw, sh), (ow, oh) in CASES:
        source = Image.frombytes("I;16", (sw, sh), pixels16(sw, sh))
        for filter_name, resample in FILTERS.items():
            out = source.resize((ow, oh), resample).tobytes()
            lines.append("\t".join(map(str, [name, "I;16", filter_name, sw, sh, ow, oh, len(blob), len(out)])))
            blob += out
    with open(os.path.join(HERE, "pillow-resize16.bin"), "wb") as f:
        f.write(blob)
    with open(os.path.join(HERE, "pillow-resize16.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
