"""The Python baseline of bench-e2e: download and thumbnail a list of images with a thread pool.

    python pillow_e2e.py URL_LIST OUT_DIR THREADS BOX

Each task: GET with requests (one keep-alive Session per thread), Image.open from the bytes,
draft("RGB", (BOX, BOX)), thumbnail((BOX, BOX)), save as JPEG into OUT_DIR. Prints the wall
seconds of the whole pool (interpreter start-up and imports excluded) and the number saved.
"""
import io
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import requests
from PIL import Image

local = threading.local()


def session():
    if not hasattr(local, "session"):
        local.session = requests.Session()
    return local.session


def work(args):
    index, url, out_dir, box = args
    response = session().get(url, timeout=30)
    response.raise_for_status()
    image = Image.open(io.BytesIO(response.content))
    image.draft("RGB", (box, box))
    image.thumbnail((box, box))
    image.save(os.path.join(out_dir, f"{index:05d}.jpg"), "JPEG")
    return image.size


def main():
    with open(sys.argv[1]) as f:
        urls = [line.strip() for line in f if line.strip()]
    out_dir, threads, box = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        sizes = list(pool.map(work, [(i, url, out_dir, box) for i, url in enumerate(urls)]))
    wall = time.perf_counter() - start
    print(f"{wall:.6f}\t{len(sizes)}")


if __name__ == "__main__":
    main()
