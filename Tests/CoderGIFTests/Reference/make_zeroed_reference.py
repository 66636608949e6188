#!/usr/bin/env python3
"""Writes pillow-zeroed.tsv: REFERENCE-ANIM.tsv's GIF hashes (and one per frame) with RGB set to 0 where alpha is 0.

Pillow keeps the palette colour under alpha 0 (the `alpha0-rgb-nonzero` caveat in
Tests/Corpora/README.md); GIFCoder writes transparent pixels as (0,0,0,0), as browsers and
libvips do. The caveat says to compare with RGB zeroed there; this table holds Pillow's answer
zeroed that way, decoded exactly as make_reference_anim.py does (im.seek(i); im.convert('RGBA')).
Run with the peers' Pillow 13:  ~/.cache/imagekernel-peers/pillow/bin/python make_zeroed_reference.py
"""
import hashlib
import os
import sys

from PIL import Image

here = os.path.dirname(os.path.abspath(__file__))
root = os.environ.get("IMAGEKERNEL_TESTDATA", os.path.join(here, "../../Corpora"))


def zeroed(rgba):
    data = bytearray(rgba.tobytes())
    data[0::4] = bytes(r if a else 0 for r, a in zip(data[0::4], data[3::4]))
    data[1::4] = bytes(g if a else 0 for g, a in zip(data[1::4], data[3::4]))
    data[2::4] = bytes(b if a else 0 for b, a in zip(data[2::4], data[3::4]))
    return bytes(data)


rows = []
with open(os.path.join(root, "REFERENCE-ANIM.tsv")) as table:
    for line in table:
        fields = line.rstrip("\n").split("\t")
        if line.startswith("#") or not fields[0].endswith(".gif") or fields[1] == "ERROR":
            continue
        with Image.open(os.path.join(root, fields[0])) as image:
            frames = hashlib.sha256()
            each = []
            for index in range(image.n_frames):
                image.seek(index)
                pixels = zeroed(image.convert("RGBA"))
                each.append(hashlib.sha256(pixels).hexdigest())
                frames.update(pixels)
        rows.append((fields[0], each[0], frames.hexdigest(), ",".join(each)))

with open(os.path.join(here, "pillow-zeroed.tsv"), "w") as out:
    out.write(f"# Pillow {Image.__version__}: path, frame 0, all-frames and per-frame SHA-256 with RGB zeroed where alpha is 0\n")
    for row in rows:
        out.write("\t".join(row) + "\n")
print(f"{len(rows)} rows", file=sys.stderr)
