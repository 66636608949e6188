import BenchSupport
import CacheRedis
import Foundation
import ImageKernel
import ImageKernelTestSupport

// CacheRedis on Redis Cluster, in one run:
//   hits of 50 KB values through the cluster tier (RedisCache on a 3-master/3-replica cluster on
//   127.0.0.1, `--clients` tasks, `--keys` keys spread over the masters), in requests per second,
//   against `redis-benchmark --cluster -t get -d 51200 -c clients` on the same cluster (goal >= 0.8x)
//   and against today's single-node tier (RedisCache on one redis-server, the same keys and tasks;
//   goal >= 0.9x).
// Usage: bench-redis-cluster [--clients 8] [--keys 48] [--requests 20000] [--rounds 3]

let cluster = try RedisClusterServer()
defer { cluster.stop() }
let single = try Redis()
defer { single.stop() }
try await ClusterHitBenchmark(
    cluster: cluster, single: single, clients: Options.int("--clients", 8), keys: Options.int("--keys", 48),
    requests: Options.int("--requests", 20000), rounds: Options.int("--rounds", 3)
).run()
