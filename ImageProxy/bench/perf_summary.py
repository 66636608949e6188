#!/usr/bin/env python3
"""Summarises `perf script` output (demangled) for run.sh --profile perf / perf-cold.

    perf script -i perf.data | swift-demangle --simplified | perf_summary.py hot|cold [REQUESTS]

Prints, over all samples of the profiled process: the share of samples whose stack passes
through each frame of interest (inclusive, so the lines overlap), and each sample's leaf
classified into one bucket (exclusive, sums to 100 %). With REQUESTS, the shares are also given
as CPU microseconds per request (samples x sampling period / requests).
"""
import re
import sys
from collections import Counter

# (label, regex on a frame's symbol); inclusive shares
INTERESTING = {
    "hot": [
        ("Hummingbird/NIO HTTP server, all of it", r"SelectableEventLoop\.run|NIOAsyncChannel|HTTPServer|Hummingbird"),
        ("ProxyRoutes.respond (the request handler)", r"ProxyRoutes\.respond"),
        ("ImageProxyService.respond", r"ImageProxyService\.respond"),
        ("  ProxyRequest.parse (path, URL(string:))", r"ProxyRequest\.parse"),
        ("  OriginPolicy.check", r"OriginPolicy\.check"),
        ("  TransformSpec parsing", r"TransformSpec\.init|TransformSpec\(parsing"),
        ("  ImageProxyService.render (key, memory hit)", r"ImageProxyService\.render\(source"),
        ("  ResultMemoryCache.value", r"ResultMemoryCache\.value"),
        ("  success (headers)", r"ImageProxyService\.success"),
        ("ProxyRoutes.count / metrics", r"ProxyRoutes\.count|Prometheus|Metrics\.|Counter"),
        ("ProxyRoutes.response (HTTPFields, ByteBuffer copy)", r"ProxyRoutes\.response"),
        ("Logger (request log line)", r"Logger\.|StreamLogHandler"),
        ("HTTP/1 decoding (NIOHTTP1, llhttp)", r"HTTPDecoder|HTTPRequestDecoder|llhttp|c_nio_llhttp"),
        ("HTTP/1 encoding", r"HTTPResponseEncoder|HTTPEncoder|writeHead"),
        ("socket writes (writev)", r"writev|sendmsg"),
        ("socket reads", r"\bread\b|readv|recvmsg|recvfrom|__GI___read"),
        ("epoll wait / wake-ups", r"epoll_wait|eventfd|epoll_ctl"),
        ("futex (thread hand-offs)", r"futex"),
        ("Swift concurrency jobs (swift_job_run)", r"swift_job_run"),
        ("retain/release", r"swift_retain|swift_release|swift_bridgeObjectRe"),
        ("malloc/free", r"\bmalloc\b|\bfree\b|_int_malloc|_int_free|cfree|swift_allocObject|swift_slowAlloc"),
        ("context switches (kernel schedule)", r"__schedule|finish_task_switch"),
    ],
    "cold": [
        ("the render (ImageProxyService.renderFresh: load, decode, transform, encode, store)", r"renderFresh"),
        ("  OrientTransformer", r"OrientTransformer"),
        ("  resize (ResizeTransformer)", r"ResizeTransformer"),
        ("    FilterWeights (weights, sin)", r"FilterWeights|__sin"),
        ("  etag digest (SHA-256 of the source)", r"Digest\.|SHA256|sha256"),
        ("loading the source (HTTPLoader, curl)", r"HTTPLoader|curl_|Curl_|libcurl"),
        ("disk cache stores (DiskCache)", r"DiskCache\.store|DiskCache\.storeData"),
        ("disk cache lookups", r"DiskCache\.(value|load|data|lookup|cachedData)|storedResult"),
        ("file creation (open O_CREAT: ext4 inode allocation)", r"ext4_create|__ext4_new_inode"),
        ("file writes/renames/fsync", r"ksys_write|vfs_write|rename|fsync|fdatasync"),
        ("page faults (fresh memory)", r"exc_page_fault|asm_exc_page_fault"),
        ("Hummingbird/NIO HTTP server", r"SelectableEventLoop\.run"),
        ("futex (thread hand-offs)", r"futex"),
        ("malloc/free", r"\bmalloc\b|\bfree\b|_int_malloc|_int_free|cfree|swift_allocObject|swift_slowAlloc"),
    ],
}

# The cold path's CPU, each sample given to one owner (first match over its whole stack, leaf and
# callers): what the codec floor (floor/) also does, and what it does not.
OWNERS = [
    ("codec work: libjpeg and the resize kernels (what the floor does too)", lambda leaf, stack: re.search(r"libjpeg|\bik_|cjpeg_", leaf)),
    ("spinning waits (sched_yield, SpinningSignal)", lambda leaf, stack: re.search(r"sched_yield|SpinningSignal", stack)),
    ("disk cache writes (DiskCache stores, file creation, writes, renames)",
     lambda leaf, stack: re.search(r"DiskCache\.store|ext4_create|__ext4_new_inode|do_renameat|ksys_write|vfs_write\b|fsync|unlinkat", stack)),
    ("fetching the source (ImageProxyService.loadSource, LoaderHTTP, curl)", lambda leaf, stack: re.search(r"loadSource|HTTPLoader|Transfer\.|curl_|Curl_|libcurl", stack)),
    ("the render around the codecs (planes, weights, buffers, JPEGCoder, ResizeTransformer)",
     lambda leaf, stack: re.search(r"renderFresh|PlanarRender|ResultRender|ResizeTransformer|JPEGCoder|SeparableFilter|YCbCr|FilterAxis", stack)),
    ("HTTP server (NIO event loops, Hummingbird, sockets)", lambda leaf, stack: re.search(r"SelectableEventLoop|NIO|Hummingbird|HTTPServer|writev|sock_|tcp_", stack)),
    ("request handling (routes, parsing, cache keys, result caches)", lambda leaf, stack: re.search(r"ProxyRoutes|ImageProxyService|ProxyRequest|ResultMemoryCache|SharedWork", stack)),
    ("page faults elsewhere", lambda leaf, stack: re.search(r"exc_page_fault", stack)),
    ("Swift concurrency and Dispatch (jobs, task hops)", lambda leaf, stack: re.search(r"swift_job_run|swift_task|libswift_Concurrency|dispatch", stack)),
    ("kernel: scheduling, futex, idle wake-ups", lambda leaf, stack: re.search(r"schedule|futex|epoll", stack)),
    ("other", lambda leaf, stack: True),
]

BUCKETS = [  # leaf frame classification, first match wins
    ("kernel: file system", r"ext4|find_inode_bit|recently_deleted|find_get_block|filemap|jbd2|vfs_|path_openat|dput|d_alloc"),
    ("kernel: network", r"tcp_|sock_|skb|ip_|__dev_|net_|loopback|_copy_from_iter|_copy_to_iter|copy_user"),
    ("kernel: scheduling, futex, epoll", r"schedule|finish_task_switch|futex|epoll|ep_|try_to_wake_up|_raw_spin_unlock|irqentry"),
    ("kernel: memory (page faults, zeroing)", r"clear_page|page_fault|alloc_pages|folio|unmap|handle_mm_fault|do_anonymous_page|zap_|free_pages|lru"),
    ("kernel: other", r"^\[k\]"),
    ("libjpeg (decode and encode: its frames do not unwind, so no caller above it)", r"libjpeg"),
    ("resize kernels (CTransformKernels, SeparableFilter, rendering, row codec)", r"\bik_|SeparableFilter|Image\.rendering|clampToRange|WorkingRowCodec|FilterWeights|__sin"),
    ("retain/release", r"swift_retain|swift_release|swift_bridgeObjectRe|swift_unknownObjectRe"),
    ("malloc/free", r"malloc|_int_free|cfree|free@|swift_allocObject|swift_slowAlloc|swift_deallocObject"),
    ("memcpy/memset", r"memmove|memcpy|memset"),
    ("Swift concurrency runtime", r"libswift_Concurrency|swift_task|swift_job|StackAllocator|swift::"),
    ("String/Foundation", r"String|Substring|Foundation|URL|CharacterSet|_StringGuts|unicode"),
    ("Dictionary/hashing", r"Dictionary|Hasher|_hash|hashValue|siphash"),
    ("libdispatch", r"dispatch"),
    ("other", r""),
]


def parse(stream):
    """Yields (leaf_text, [frame symbols]) per sample."""
    frames = []
    for line in stream:
        if not line.strip():
            if frames:
                yield frames
            frames = []
            continue
        if line[0] not in " \t":
            frames = []  # a sample header
            continue
        m = re.match(r"\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$", line)
        if m:
            sym, dso = m.group(1), m.group(2)
            kernel = "kernel" in dso or dso.startswith("[k")
            frames.append(("[k] " if kernel else "") + sym + " @" + dso.rsplit("/", 1)[-1])
    if frames:
        yield frames


def main():
    mode = sys.argv[1]
    requests = float(sys.argv[2]) if len(sys.argv) > 2 else 0
    period_us = float(sys.argv[3]) if len(sys.argv) > 3 else 0
    samples = list(parse(sys.stdin))
    n = len(samples)
    if not n:
        sys.exit("perf_summary: no samples")
    per = (lambda k: " %8.1f µs/request" % (k * period_us / requests)) if requests and period_us else (lambda k: "")
    print("%d samples" % n)
    print("== inclusive: share of samples whose stack passes through")
    for label, pattern in INTERESTING[mode]:
        rx = re.compile(pattern)
        k = sum(1 for frames in samples if any(rx.search(f) for f in frames))
        print("  %5.1f %%%s  %s" % (100.0 * k / n, per(k), label))
    print("== exclusive: where the leaf (the running code) is")
    counts = Counter()
    for frames in samples:
        leaf = frames[0]
        for label, pattern in BUCKETS:
            if re.search(pattern, leaf):
                counts[label] += 1
                break
    for label, k in counts.most_common():
        print("  %5.1f %%%s  %s" % (100.0 * k / n, per(k), label))
    if mode == "cold":
        print("== attribution: each sample to one owner (the first that matches its stack)")
        owners = Counter()
        for frames in samples:
            stack = "\n".join(frames)
            owners[next(label for label, match in OWNERS if match(frames[0], stack))] += 1
        for label, k in owners.most_common():
            print("  %5.1f %%%s  %s" % (100.0 * k / n, per(k), label))


if __name__ == "__main__":
    main()
