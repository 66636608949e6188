"""bench-s3's peer: GET every key of a bucket with boto3 from THREADS threads, ROUNDS times.

Usage: boto3_get.py ENDPOINT ACCESS_KEY SECRET_KEY BUCKET KEYS_FILE THREADS ROUNDS
Prints one line per round: the seconds for all GETs (bodies read), after one warm-up pass that
opens the connection pool. A failed GET or a short body exits non-zero.
"""
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import boto3
from botocore.config import Config

endpoint, access, secret, bucket, keys_file, threads, rounds = sys.argv[1:8]
threads, rounds = int(threads), int(rounds)
keys = [line.rstrip("\n") for line in open(keys_file, encoding="utf-8") if line.strip()]
# One client shared by the threads (boto3's clients are thread safe), a pool as large as the threads.
client = boto3.client(
    "s3", endpoint_url=endpoint, aws_access_key_id=access, aws_secret_access_key=secret, region_name="us-east-1",
    config=Config(max_pool_connections=threads, s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
)


def get(key):
    body = client.get_object(Bucket=bucket, Key=key)["Body"].read()
    if not body:
        raise SystemExit(f"empty body for {key}")
    return len(body)


with ThreadPoolExecutor(max_workers=threads) as pool:
    total = sum(pool.map(get, keys))  # warm-up: connections opened, code paths loaded
    for _ in range(rounds):
        start = time.perf_counter()
        got = sum(pool.map(get, keys))
        elapsed = time.perf_counter() - start
        if got != total:
            raise SystemExit(f"read {got} bytes, expected {total}")
        print(f"{elapsed:.6f}", flush=True)
