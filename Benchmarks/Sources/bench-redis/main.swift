import BenchSupport
import Foundation

// CacheRedis against the tools that come with Redis, on one redis-server on 127.0.0.1:
//   hits:        RedisCache.query of one 50 KB entry, one task at a time (p50 latency) and
//                `--clients` tasks over a pool of `--connections` connections (requests per second;
//                the pool pipelines what queues on a connection),
//                against `redis-benchmark -d 51200 -t get` with -c 1 and -c `--clients` on the
//                same server (goal: at least 0.8x its GET rate);
//   two processes: a first process loads `--files` JPEGs from nginx (download + decode + store in
//                memory, disk and Redis), a second one with an empty disk cache loads the same URLs
//                (Redis + decode + store on its disk): wall time of each process, the ratio, and
//                the bytes each moved from the origin and from Redis.
// Usage: bench-redis [--clients 8] [--connections 1,2] [--requests 20000] [--rounds 3] [--files 200]

if let role = Options.string("--role") {
    try await TwoProcesses.child(role: role)
    exit(0)
}

let clients = Options.int("--clients", 8)
let requests = Options.int("--requests", 20000)
let rounds = Options.int("--rounds", 3)
let files = Options.int("--files", 200)
// Pool sizes to measure, each against redis-benchmark in the same rounds: with 1 connection the
// 8 in flight share its pipeline (each command written at once, behind those in flight); a pool
// of 2 opens its second connection only past 16 in flight, so at 8 this line checks that an idle
// second connection costs nothing (spread over both, the same 8 ran at half the rate).
let connectionCounts = (Options.string("--connections") ?? "1,2").split(separator: ",").compactMap { Int($0) }

let redis = try Redis()
defer { redis.stop() }
for connections in connectionCounts {
    try await HitBenchmark(redis: redis, clients: clients, requests: requests, rounds: rounds, connections: connections).run()
}
try await TwoProcesses(redis: redis, files: files).run()
