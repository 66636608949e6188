#!/usr/bin/env python3
"""Helpers for ImageProxy/bench/run.sh (system python3, standard library only).

    helpers.py url SERVICE BASE SOURCE_URL          print the request URL for one source
    helpers.py curlcfg SERVICE BASE ORIGIN OUTDIR N [PREFIX]  curl -K config: the N cold sources
                                                     (PREFIX000.jpg ...; c: photo windows, n: noise), once each
    helpers.py floorcmp FLOORDIR SERVICEDIR          the floor's results against the service's: print
                                                     "files identical same_size size_ratio worst_size_dev_pct"
    helpers.py check FILE [W H]                      is FILE a 200-ready JPEG of W x H? (exit 0/1)
    helpers.py checkcold WRITEOUT OUTDIR N [W H]     validate a cold run: print "ok failed"
    helpers.py wrk WRK_OUTPUT                        print "req_per_s p99_ms errors"
    helpers.py report TSV                            markdown table and ratios

SERVICE is nginx (static file), thumbor or proxy (image-proxy). The operation is the same
everywhere: fill 300x200 (scale to cover, centre crop), JPEG quality 80.
"""
import os
import re
import struct
import sys
from urllib.parse import quote

W, H, Q = 300, 200, 80


def request_url(service, base, source):
    base = base.rstrip("/")
    if service == "thumbor":
        # thumbor's WxH without fit-in is a fill: scale to cover, then crop the centre
        return "%s/unsafe/%dx%d/filters:quality(%d)/%s" % (base, W, H, Q, source)
    if service in ("proxy", "proxyb"):
        return "%s/unsafe/resize:fill:%d:%d/q:%d/f:jpeg/plain/%s" % (base, W, H, Q, quote(source, safe=""))
    if service == "nginx":
        return base + "/result.jpg"
    sys.exit("unknown service " + service)


def jpeg_size(data):
    """(width, height) from the first SOF marker, or None when data is not a JPEG."""
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + length
    return None


def check_file(path, w=W, h=H):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return False
    return jpeg_size(data) == (w, h) and data[-2:] == b"\xff\xd9"


def cmd_curlcfg(service, base, origin, outdir, n, prefix="c"):
    os.makedirs(outdir, exist_ok=True)
    for i in range(int(n)):
        url = request_url(service, base, "%s/%s%03d.jpg" % (origin.rstrip("/"), prefix, i))
        print('url = "%s"' % url)
        print('output = "%s/%s%03d.jpg"' % (outdir, prefix, i))


def cmd_floorcmp(floordir, servicedir):
    """Does the floor do the service's work? Same dimensions (else the file counts as different),
    byte-identical files, and the ratio of total sizes floor / service."""
    files = identical = same_size = 0
    floor_bytes = service_bytes = 0
    worst = 0.0
    for name in sorted(os.listdir(floordir)):
        try:
            a = open(os.path.join(floordir, name), "rb").read()
            b = open(os.path.join(servicedir, name), "rb").read()
        except OSError:
            continue
        files += 1
        identical += a == b
        same_size += jpeg_size(a) is not None and jpeg_size(a) == jpeg_size(b)
        floor_bytes += len(a)
        service_bytes += len(b)
        worst = max(worst, abs(len(a) - len(b)) / max(len(b), 1) * 100)
    print(files, identical, same_size, "%.4f" % (floor_bytes / service_bytes if service_bytes else 0), "%.2f" % worst)


def cmd_checkcold(writeout, outdir, n, w=W, h=H):
    # curl -w '%{http_code} %{content_type} %{filename_effective}\n'
    ok = failed = 0
    codes = {}
    seen = set()
    with open(writeout) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 2:
                continue
            code, path = parts[0], parts[-1]
            seen.add(os.path.basename(path))
            good = code == "200" and check_file(path, int(w), int(h))
            ok += good
            failed += not good
            if not good:
                codes[code] = codes.get(code, 0) + 1
    missing = int(n) - len(seen)
    failed += max(missing, 0)
    print(ok, failed)
    if failed:
        print("failures by HTTP code: %s, no answer: %d" % (codes, max(missing, 0)), file=sys.stderr)


def to_ms(text):
    m = re.match(r"([\d.]+)(us|ms|s|m)$", text)
    if not m:
        return float("nan")
    v, unit = float(m.group(1)), m.group(2)
    return v * {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4}[unit]


def cmd_wrk(path):
    text = open(path).read()
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    p99 = re.search(r"^\s+99%\s+(\S+)", text, re.M)
    errors = 0
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if sock:
        errors += sum(int(x) for x in sock.groups())
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    if non2xx:
        errors += int(non2xx.group(1))
    done = re.search(r"(\d+) requests in", text)
    print("%s %s %d %s" % (rps.group(1) if rps else "nan", "%.3f" % to_ms(p99.group(1)) if p99 else "nan", errors,
                           done.group(1) if done else "0"))


def cmd_report(tsv):
    rows = []
    header = None
    for line in open(tsv):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        if header is None:
            header = f
            continue
        rows.append(dict(zip(header, f)))

    def cpu_us(r):
        """Service CPU microseconds per request: CPU seconds used / requests answered."""
        try:
            wall = 1 / float(r["value"]) if r["path"] == "hot" else float(r["value"])
            n = float(r["requests"])
            total = float(r["svc_cores"]) * (wall * n if r["path"] == "hot" else wall)
            return total / n * 1e6 if n else None
        except (KeyError, ValueError, ZeroDivisionError):
            return None

    def cpu_text(r):
        v = cpu_us(r)
        if v is None:
            return "-"
        return "%.0f µs" % v if v < 1000 else "%.2f ms" % (v / 1000)

    def sources(r):
        """The cold path's source set (photo windows or noise); TSVs before the column: photo."""
        return r.get("sources") or "photo"

    def get(service, path, conc, key="value", of="photo"):
        # With --cold-rounds N a line is measured N times: the median of the rounds.
        values = []
        for r in rows:
            if r["service"] == service and r["path"] == path and r["conc"] == str(conc) and (path == "hot" or sources(r) == of):
                if key == "cpu":
                    v = cpu_us(r)
                else:
                    try:
                        v = float(r[key])
                    except ValueError:
                        v = None
                if v is not None:
                    values.append(v)
        if not values:
            return None
        values.sort()
        mid = len(values) // 2
        return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2

    print("| service | path | connections / parallel | req/s (hot) or seconds (cold) | p99 ms | peak RSS MB"
          " | cores: service | cores: client + origin | cores: other | cores: host | service CPU per request"
          " | failed | bytes |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    busy = []
    for r in rows:
        if r["service"] == "floorcmp":
            continue
        unit = "req/s" if r["path"] == "hot" else "s"
        print("| %s | %s | %s | %s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["service"], r["path"] if r["path"] == "hot" else "cold, " + sources(r), r["conc"], r["value"], unit, r["p99_ms"], r["peak_rss_mb"],
            r["svc_cores"], r.get("client_cores", "-"), r.get("other_cores", "-"), r["host_cores"],
            cpu_text(r), r["errors"], r["bytes"]))
        try:
            if float(r.get("other_cores", "0")) > 0.15:
                busy.append("%s %s %s (%s)" % (r["service"], r["path"], r["conc"], r["other_cores"]))
        except ValueError:
            pass
    print()
    print("Cores are CPU seconds per second of the run: the service's processes; the load generator"
          " (wrk or curl) and the origin nginx; anything else on the machine (host - service - client);"
          " the whole machine (2 cores).")
    if busy:
        print()
        print("WARNING: something else used the CPU during: " + "; ".join(busy) + ". Those figures are disturbed.")
    print()

    def ratio(label, a, b, goal=None, fmt="%.2fx"):
        if a is None or b is None or b == 0:
            print("- %s: n/a" % label)
            return
        v = a / b
        tail = ""
        if goal is not None:
            tail = " (goal %s: %s)" % (goal[0], "met" if goal[1](v) else "NOT met")
        print("- %s: %s%s" % (label, fmt % v, tail))

    print("Ratios:")
    for c in (1, 8, 64):
        goal = (">= 0.25x", lambda v: v >= 0.25) if c in (8, 64) else None
        ratio("image-proxy / nginx static, hot, %d conns" % c, get("proxy", "hot", c), get("nginx", "hot", c), goal)
    if any(r["service"] == "proxyb" and r["path"] == "hot" for r in rows):  # --proxy-bin-b: the A/B
        for c in (1, 8, 64):
            ratio("proxyb / nginx static, hot, %d conns" % c, get("proxyb", "hot", c), get("nginx", "hot", c))
            ratio("proxyb / proxy, hot req/s, %d conns (the A/B)" % c, get("proxyb", "hot", c), get("proxy", "hot", c))
            ratio("proxy CPU / proxyb CPU per request, hot, %d conns (the A/B)" % c, get("proxy", "hot", c, "cpu"), get("proxyb", "hot", c, "cpu"))
    p99 = get("proxy", "hot", 64, "p99_ms")
    if p99 is not None:
        runs = sorted(float(r["p99_ms"]) for r in rows if r["service"] == "proxy" and r["path"] == "hot" and r["conc"] == "64")
        spread = " (median of %d runs: %s ms)" % (len(runs), ", ".join("%.2f" % v for v in runs)) if len(runs) > 1 else ""
        print("- image-proxy p99 at 64 conns: %.2f ms%s (goal < 10 ms: %s)" % (p99, spread, "met" if p99 < 10 else "NOT met"))
    for c in (1, 8, 64):
        ratio("image-proxy / thumbor, hot req/s, %d conns" % c, get("proxy", "hot", c), get("thumbor", "hot", c))
    for c in (1, 8, 64):
        ratio("image-proxy vs thumbor, cold (thumbor s / image-proxy s), %d parallel" % c,
              get("thumbor", "cold", c), get("proxy", "cold", c), (">= 5x", lambda v: v >= 5))
    print()
    print("CPU per request (less disturbed by other load than rates; higher = image-proxy cheaper):")
    for c in (1, 8, 64):
        ratio("nginx static CPU / image-proxy CPU per request, hot, %d conns" % c, get("nginx", "hot", c, "cpu"), get("proxy", "hot", c, "cpu"))
    for c in (1, 8, 64):
        ratio("thumbor CPU / image-proxy CPU per request, hot, %d conns" % c, get("thumbor", "hot", c, "cpu"), get("proxy", "hot", c, "cpu"))
    for c in (1, 8, 64):
        ratio("thumbor CPU / image-proxy CPU per image, cold, %d parallel" % c, get("thumbor", "cold", c, "cpu"), get("proxy", "cold", c, "cpu"))
    floor_report(rows, get, sources, ratio)


def floor_report(rows, get, sources, ratio):
    """The floor ratio: image-proxy's CPU per image over the codec floor's (floor/floor.c), per source
    set and parallel level, each from the floor runs just before and after that service run."""
    sets = []
    for r in rows:
        if r["service"] == "floor" and sources(r) not in sets:
            sets.append(sources(r))
    if not sets:
        return
    print()
    print("Floor ratio: image-proxy's CPU per image over the codec floor's (the same decode, resize and encode in C on one"
          " core, run just before and after each service run; medians over rounds):")
    for of in sets:
        for service in ("proxy", "proxyb"):
            for c in (1, 8, 64):
                proxy, floor = get(service, "cold", c, "cpu", of), get("floor", "cold", c, "cpu", of)
                if proxy is None or floor is None:
                    continue
                label = "%s, %d parallel: %s %.0f µs / floor %.0f µs" % (of, c, service, proxy, floor)
                ratio(label, proxy, floor, ("<= 1.5x", lambda v: v <= 1.5))
        for c in (1, 8, 64):
            a, b = get("proxy", "cold", c, "cpu", of), get("proxyb", "cold", c, "cpu", of)
            if a is not None and b is not None:
                ratio("%s, %d parallel: CPU per image proxyb / proxy (the A/B)" % (of, c), b, a)
        for r in rows:
            if r["service"] == "floorcmp" and sources(r) == of:
                print("  - %s: the floor's results against image-proxy's: %s" % (of, r["value"]))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "url":
        print(request_url(*args))
    elif cmd == "curlcfg":
        cmd_curlcfg(*args)
    elif cmd == "floorcmp":
        cmd_floorcmp(*args)
    elif cmd == "check":
        sys.exit(0 if check_file(args[0], *(int(a) for a in args[1:3])) else 1)
    elif cmd == "checkcold":
        cmd_checkcold(*args)
    elif cmd == "wrk":
        cmd_wrk(args[0])
    elif cmd == "report":
        cmd_report(args[0])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
