import BenchSupport
import Foundation
import ImageKernel
import ImageKernelTestSupport
import LoaderS3

// LoaderS3 against boto3 (the AWS SDK for Python) on one Ceph RADOS Gateway on 127.0.0.1
// (ImageKernelTestSupport's CephRGWServer): `--objects` objects of `--size` bytes, each fetched
// once per round with `--concurrency` in flight — S3Loader with that many concurrent loads (its
// HTTPLoader's maxConcurrentDownloads set to the same), boto3 with a thread pool of that many
// threads and a connection pool as large. Rounds alternate between the two so both see the same
// machine load; medians and the ratio (goal: LoaderS3 >= 1.5x boto3's GET rate).
// The boto3 peer: $IMAGEKERNEL_BOTO3_PYTHON, else the `boto3` venv of Benchmarks/peers/setup.sh,
// else python3 when it imports boto3.
// Usage: bench-s3 [--objects 1000] [--size 51200] [--concurrency 8] [--rounds 5]

let objects = Options.int("--objects", 1000)
let size = Options.int("--size", 51_200)
let concurrency = Options.int("--concurrency", 8)
let rounds = Options.int("--rounds", 5)

func boto3Python() -> String? {
    let environment = ProcessInfo.processInfo.environment
    if let forced = environment["IMAGEKERNEL_BOTO3_PYTHON"] { return forced }
    let root = environment["IMAGEKERNEL_PEERS"] ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/imagekernel-peers").path
    if FileManager.default.fileExists(atPath: "\(root)/boto3/.ok") { return "\(root)/boto3/bin/python" }
    return (try? Peers.run("/usr/bin/env", ["python3", "-c", "import boto3"])) != nil ? "/usr/bin/env" : nil
}

guard let python = boto3Python() else {
    print("bench-s3: no boto3 (bash Benchmarks/peers/setup.sh --only boto3, or pip install boto3)")
    exit(1)
}

let server = try CephRGWServer()
defer { server.stop() }
let bucket = try await server.makeBucket("bench")
let keys = (0..<objects).map { "images/\($0 / 100)/photo-\($0).jpg" }
// Distinct bodies, so nothing can be served from one buffer.
try await withThrowingTaskGroup(of: Void.self) { group in
    for (index, key) in keys.enumerated() {
        if index >= 16 { try await group.next() }
        group.addTask {
            var bytes = [UInt8](repeating: 0, count: size)
            for offset in stride(from: 0, to: size, by: 4096) { bytes[offset] = UInt8(truncatingIfNeeded: index &+ offset >> 12) }
            let data = Data(bytes)
            try await server.put(bucket: bucket, key: key, data: data)
        }
    }
    try await group.waitForAll()
}
let keysFile = FileManager.default.temporaryDirectory.appendingPathComponent("bench-s3-keys-\(UUID().uuidString).txt")
try keys.joined(separator: "\n").write(to: keysFile, atomically: true, encoding: .utf8)
defer { try? FileManager.default.removeItem(at: keysFile) }

var configuration = S3Loader.Configuration(environment: [:])
configuration.endpoint = server.endpoint
configuration.credentials = StaticS3Credentials(server.credentials)
configuration.http.maxConcurrentDownloads = concurrency
let loader = try S3Loader(configuration: configuration)
let urls = keys.map { S3Location(bucket: bucket, key: $0).url }

/// One pass: every object once, `concurrency` loads in flight; returns the seconds.
func ourPass() async throws -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    let received = try await withThrowingTaskGroup(of: Int.self) { group in
        var total = 0
        for (index, url) in urls.enumerated() {
            if index >= concurrency { total += try await group.next() ?? 0 }
            group.addTask { try await loader.load(ImageRequest(url: url), options: [], context: ImageContext()) { _ in }.data.count }
        }
        for try await count in group { total += count }
        return total
    }
    guard received == objects * size else { throw BenchError("LoaderS3 read \(received) bytes, expected \(objects * size)") }
    return Measure.seconds(clock.now - start)
}

func boto3Pass() throws -> Double {
    let script = benchmarksDirectory().appendingPathComponent("Scripts/boto3_get.py").path
    let arguments = [script, server.endpoint.absoluteString, server.accessKey, server.secretKey, bucket, keysFile.path, "\(concurrency)", "1"]
    let output = try Peers.run(python, python == "/usr/bin/env" ? ["python3"] + arguments : arguments)
    guard let seconds = output.split(separator: "\n").last.flatMap({ Double($0) }) else { throw BenchError("boto3_get.py printed \(output)") }
    return seconds
}

_ = try await ourPass()
var ours: [Double] = [], theirs: [Double] = []
for round in 0..<rounds {
    if round % 2 == 0 {
        ours.append(try await ourPass())
        theirs.append(try boto3Pass())
    } else {
        theirs.append(try boto3Pass())
        ours.append(try await ourPass())
    }
}
let (a, b) = (Measure.median(ours), Measure.median(theirs))
let widths = [-34, 10, 12]
print("\(objects) GETs of \(size / 1024) KB, \(concurrency) in flight, RADOS Gateway on 127.0.0.1, median of \(rounds) rounds")
print(Table.row(["", "seconds", "GETs/s"], widths))
print(Table.row(["LoaderS3 (S3Loader)", String(format: "%.3f", a), String(format: "%.0f", Double(objects) / a)], widths))
print(Table.row(["boto3, \(concurrency) threads", String(format: "%.3f", b), String(format: "%.0f", Double(objects) / b)], widths))
print("ratio (boto3 time / LoaderS3 time): \(String(format: "%.2f", b / a))x   goal >= 1.5x")
