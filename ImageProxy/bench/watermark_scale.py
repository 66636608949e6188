#!/usr/bin/env python3
"""imgproxy's `watermark` scale without a bound: what a large scale costs against scale 1.

image-proxy --compat imgproxy renders a 1000x500 PNG with a 400x200 mark centred at scales 1
(the baseline: the mark fitted to the result's size), 4 (the largest scale resized whole), 10,
1000 and tiled (`re`) at 1000; rounds interleave the cases, every request cold (a new `cb`). It
prints the medians of wall time and of the service's own CPU time per request (utime + stime from
/proc, which a busy machine hardly moves) and their ratios to scale 1. Above 4 only the part of
the scaled mark that lands on the result is resized, so every ratio should stay near 1.

    python3 ImageProxy/bench/watermark_scale.py [--rounds 6] [--per-round 10] [--proxy-bin PATH]
"""
import argparse, http.server, os, statistics, struct, subprocess, tempfile, threading, time, urllib.request, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [("no watermark", "w:1000"), ("scale 1", "wm:1:ce:0:0:1"), ("scale 4", "wm:1:ce:0:0:4"),
         ("scale 10", "wm:1:ce:0:0:10"), ("scale 1000", "wm:1:ce:0:0:1000"), ("re, scale 1000", "wm:1:re:0:0:1000")]


def write_png(path, width, height, sample):
    rows = b"".join(b"\x00" + bytes(sample(x, y, c) for x in range(width) for c in range(3)) for y in range(height))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--per-round", type=int, default=10)
    parser.add_argument("--proxy-bin", default=os.path.join(HERE, "..", ".build", "release", "image-proxy"))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="watermark-scale-")
    write_png(os.path.join(work, "src.png"), 1000, 500, lambda x, y, c: (x * 7 + y + c * 50) % 256)
    write_png(os.path.join(work, "mark.png"), 400, 200, lambda x, y, c: ((x + y) % 256, x % 256, y % 256)[c])
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a):
            super().__init__(*a, directory=work)
        def log_message(self, *a):
            pass
    origin = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=origin.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{origin.server_port}/"
    proxy = subprocess.Popen([args.proxy_bin, "--port", "0", "--compat", "imgproxy", "--allow-origin", base,
                              "--watermark", os.path.join(work, "mark.png")], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proxy.stdout.readline()
        if not line.startswith("listening on "):
            raise SystemExit(f"image-proxy did not start: {line!r}")
        service = line.split("listening on ")[1].strip()
        def run(options):
            # Wall time per request; CPU per request over the round's requests (the clock ticks
            # are 10 ms, too coarse for one request).
            wall, c0 = [], cpu_seconds(proxy.pid)
            for _ in range(args.per_round):
                url = f"{service}/unsafe/{options}/cb:{time.time_ns()}/plain/{base}src.png@png"
                t0 = time.perf_counter()
                with urllib.request.urlopen(url, timeout=60) as response:
                    response.read()
                wall.append(time.perf_counter() - t0)
            return wall, [(cpu_seconds(proxy.pid) - c0) / args.per_round]
        run("wm:1:ce:0:0:1")  # warm-up: the source in the service's caches, the code paged in
        results = {name: ([], []) for name, _ in CASES}
        for r in range(args.rounds):
            order = CASES if r % 2 == 0 else list(reversed(CASES))
            for name, options in order:
                wall, cpu = run(options)
                results[name][0].extend(wall)
                results[name][1].extend(cpu)
        baseline = [statistics.median(v) for v in results["scale 1"]]
        print(f"{'case':16} {'wall ms':>8} {'cpu ms':>8} {'wall/scale 1':>13} {'cpu/scale 1':>12}")
        for name, _ in CASES:
            wall, cpu = (statistics.median(v) for v in results[name])
            print(f"{name:16} {wall * 1000:8.1f} {cpu * 1000:8.1f} {wall / baseline[0]:13.2f} {cpu / max(baseline[1], 1e-9):12.2f}")
    finally:
        proxy.terminate()
        proxy.wait(timeout=30)
        origin.shutdown()


if __name__ == "__main__":
    main()
