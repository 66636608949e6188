"""The peers' side of bench-resize: Pillow(-SIMD) or pyvips, timed in process on raw pixels in memory.

    python peers_resize.py pillow|vips ITERATIONS CASE...

Each CASE is `name,file,width,height,bands,op,args...` with op one of
`resize,W,H,lanczos3|bilinear`, `blur,SIGMA`, `fill,W,H` (Lanczos, centre crop) or `fillround,W,H,R`. The raw file holds 8-bit
interleaved pixels. Prints `name<TAB>median seconds<TAB>output width<TAB>output height` per case;
one warm-up run per case is not timed.
"""
import statistics
import sys
import time


def pillow_ops():
    from PIL import Image, ImageDraw, ImageFilter, ImageOps

    filters = {"lanczos3": Image.Resampling.LANCZOS, "bilinear": Image.Resampling.BILINEAR}

    def load(data, w, h, bands):
        return Image.frombytes({1: "L", 3: "RGB", 4: "RGBA"}[bands], (w, h), data)

    def run(image, op, args):
        if op == "resize":
            out = image.resize((int(args[0]), int(args[1])), filters[args[2]])
        elif op == "blur":
            out = image.filter(ImageFilter.GaussianBlur(float(args[0])))
        elif op == "fill":
            out = ImageOps.fit(image, (int(args[0]), int(args[1])), Image.Resampling.LANCZOS)
        else:
            w, h, r = map(int, args)
            out = ImageOps.fit(image, (w, h), Image.Resampling.LANCZOS)
            mask = Image.new("L", (w, h), 0)
            ImageDraw.Draw(mask).rounded_rectangle((0, 0, w - 1, h - 1), r, fill=255)
            out.putalpha(mask)
        return out, out.size

    return load, run


def vips_ops():
    import pyvips

    # Without this, vips' operation cache answers every repeat of the same call from memory.
    pyvips.cache_set_max(0)

    def load(data, w, h, bands):
        return pyvips.Image.new_from_memory(data, w, h, bands, "uchar")

    def run(image, op, args):
        if op == "resize":
            w, h = int(args[0]), int(args[1])
            kernel = {"lanczos3": "lanczos3", "bilinear": "linear"}[args[2]]
            out = image.resize(w / image.width, vscale=h / image.height, kernel=kernel)
        elif op == "blur":
            out = image.gaussblur(float(args[0]))
        elif op == "fill":
            out = image.thumbnail_image(int(args[0]), height=int(args[1]), crop="centre")
        else:
            w, h, r = map(int, args)
            out = image.thumbnail_image(w, height=h, crop="centre")
            svg = f'<svg width="{w}" height="{h}"><rect width="{w}" height="{h}" rx="{r}" ry="{r}" fill="#fff"/></svg>'
            mask = pyvips.Image.svgload_buffer(svg.encode()).extract_band(3)
            out = out.bandjoin(mask)
        pixels = out.write_to_memory()  # vips is lazy: this runs the pipeline
        return pixels, (out.width, out.height)

    return load, run


def main():
    load, run = (pillow_ops if sys.argv[1] == "pillow" else vips_ops)()
    iterations = int(sys.argv[2])
    for case in sys.argv[3:]:
        name, path, w, h, bands, op, *args = case.split(",")
        with open(path, "rb") as f:
            image = load(f.read(), int(w), int(h), int(bands))
        _, size = run(image, op, args)
        samples = []
        for _ in range(iterations):
            start = time.perf_counter()
            run(image, op, args)
            samples.append(time.perf_counter() - start)
        print(f"{name}\t{statistics.median(samples):.9f}\t{size[0]}\t{size[1]}", flush=True)


if __name__ == "__main__":
    main()
