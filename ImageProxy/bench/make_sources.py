#!/usr/bin/env python3
"""Source images for ImageProxy/bench/run.sh, made at bench time (never committed).

    python make_sources.py TESTDATA OUTDIR COUNT [SETS]

SETS is photo (the default), noise or photo,noise. Writes into OUTDIR:
  src/hot.jpg            the hot source, 400x300
  src/c000.jpg ...       with photo: COUNT distinct 400x300 JPEG sources for the cold path
  src/n000.jpg ...       with noise: COUNT distinct 400x300 JPEGs (q85, 4:2:0) of uniform RGB noise,
                         seeded by their index: the worst case for the entropy coder (the issue's
                         "noisy sources"), where the codecs do the most work per pixel
  static/result.jpg      the hot source cut to 300x200 (fill: scale to cover, centre crop), JPEG q80:
                         what nginx serves as the static anchor (the limit for a cached result)

All are crops of the real photos in TESTDATA/exif-orientation/recurser (Landscape_0.jpg and
Portrait_0.jpg, 1800x1200 and 1200x1800, from Unsplash, MIT): each cold source is a different
window (scale and offset) of one of them, so no two files are equal. Needs Pillow (the thumbor
venv has it).
"""
import hashlib
import os
import random
import sys

from PIL import Image, ImageOps


def fill(im, w, h):
    """Scale to cover w x h, then centre-crop: what 'resize:fill' and thumbor's WxH do."""
    return ImageOps.fit(im, (w, h), method=Image.Resampling.LANCZOS, centering=(0.5, 0.5))


def noise(count, out, seen):
    """COUNT JPEGs of uniform RGB noise, 400x300, q85 (Pillow's default 4:2:0), each from its own seed."""
    for i in range(count):
        pixels = random.Random(0x6E6F6973 + i).randbytes(400 * 300 * 3)
        path = os.path.join(out, "src", "n%03d.jpg" % i)
        Image.frombytes("RGB", (400, 300), pixels).save(path, quality=85)
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        if digest in seen:
            sys.exit("make_sources: %s duplicates an earlier source" % path)
        seen.add(digest)


def main():
    testdata, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sets = (sys.argv[4] if len(sys.argv) > 4 else "photo").split(",")
    if not set(sets) <= {"photo", "noise"}:
        sys.exit("make_sources: SETS is photo, noise or photo,noise")
    photos = []
    for name in ("Landscape_0.jpg", "Portrait_0.jpg"):
        im = Image.open(os.path.join(testdata, "exif-orientation", "recurser", name))
        photos.append(ImageOps.exif_transpose(im).convert("RGB"))
    os.makedirs(os.path.join(out, "src"), exist_ok=True)
    os.makedirs(os.path.join(out, "static"), exist_ok=True)

    hot = fill(photos[0], 400, 300)
    hot.save(os.path.join(out, "src", "hot.jpg"), quality=85)
    fill(hot, 300, 200).save(os.path.join(out, "static", "result.jpg"), quality=80)

    seen = set()
    if "noise" in sets:
        noise(count, out, seen)
    for i in range(count if "photo" in sets else 0):
        ph = photos[i % 2]
        pw, phh = ph.size
        # window 400x300 scaled by k (1.0 .. ~3.0 of the output), at an offset walking the photo
        k = 1.0 + (i * 7 % 41) / 20.0
        ww, wh = int(400 * k), int(300 * k)
        ww, wh = min(ww, pw), min(wh, phh)
        wh = min(wh, ww * 3 // 4)
        ww = wh * 4 // 3
        xs, ys = pw - ww, phh - wh
        x = (i * 37) % (xs + 1)
        y = (i * 53) % (ys + 1)
        src = ph.crop((x, y, x + ww, y + wh)).resize((400, 300), Image.Resampling.LANCZOS)
        path = os.path.join(out, "src", "c%03d.jpg" % i)
        src.save(path, quality=85)
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        if digest in seen:
            sys.exit("make_sources: %s duplicates an earlier source" % path)
        seen.add(digest)
    print("made hot.jpg, static/result.jpg (%d bytes) and %d cold sources of each of %s in %s"
          % (os.path.getsize(os.path.join(out, "static", "result.jpg")), count, "+".join(sets), out))


if __name__ == "__main__":
    main()
