// Child process for CacheDiskTests: writes to a DiskCache in ways a test cannot do in its own
// process (being SIGKILLed mid-write, running as another process, dropping root).
//
//   cachedisk-stress kill-writer DIR SEED KEYS THREADS
//       prints "ready", then stores every key at version 0, 1, 2, … until killed
//   cachedisk-stress churn DIR PREFIX COUNT MAX_SIZE THREADS SEED
//       stores COUNT entries under a size limit, reading its own entries back as it goes;
//       prints "ok stored=… hits=…" and exits 0, or "fail …" and exits 1
//   cachedisk-stress store-as DIR UID
//       drops to UID (from root), stores one entry, prints "stored" or "error <code>"
import CacheDisk
import Foundation
import ImageKernel
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments

func fail(_ message: String) -> Never {
    print("fail \(message)")
    fflush(nil)
    exit(1)
}

func argument(_ index: Int) -> String {
    guard index < arguments.count else { fail("usage: see Sources/cachedisk-stress/main.swift") }
    return arguments[index]
}

/// Runs `body(i)` for i in 0..<count on `threads` threads.
func parallel(_ count: Int, threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: threads) { worker in
        var i = worker
        while i < count {
            body(i)
            i += threads
        }
    }
}

switch argument(1) {
case "kill-writer":
    let directory = URL(fileURLWithPath: argument(2))
    let seed = UInt64(argument(3)) ?? 0
    let keys = Int(argument(4)) ?? 1000
    let threads = Int(argument(5)) ?? 4
    let cache = DiskCache(configuration: .init(directory: directory, maxSize: 0))
    print("ready")
    fflush(nil)
    var version = 0
    while true {
        let v = version
        parallel(keys, threads: threads) { key in
            let data = StressPayload.make(seed: seed, key: key, version: v)
            do {
                try cache.storeData(data, validators: .init(etag: StressPayload.etag(version: v)), forKey: "key-\(key)")
            } catch {
                fail("store key-\(key): \(error)")
            }
        }
        version += 1
    }

case "churn":
    let directory = URL(fileURLWithPath: argument(2))
    let prefix = argument(3)
    let count = Int(argument(4)) ?? 1000
    let maxSize = Int(argument(5)) ?? (1 << 20)
    let threads = Int(argument(6)) ?? 2
    let seed = UInt64(argument(7)) ?? 0
    let cache = DiskCache(configuration: .init(directory: directory, maxSize: maxSize))
    let problems = Counter()
    let hits = Counter()
    parallel(count, threads: threads) { i in
        let data = StressPayload.make(seed: seed, key: i, version: 0)
        do {
            try cache.storeData(data, validators: .init(etag: StressPayload.etag(version: 0)), forKey: "\(prefix)-\(i)")
        } catch {
            problems.add("store \(prefix)-\(i): \(error)")
        }
        // Read back an earlier entry: a miss (trimmed, maybe by the other process) is fine,
        // anything else must be the exact bytes.
        let earlier = i / 2
        if let entry = cache.entry(forKey: "\(prefix)-\(earlier)") {
            hits.add(nil)
            guard let data = entry.data, StressPayload.version(of: data, seed: seed, key: earlier) == 0,
                entry.validators?.etag == StressPayload.etag(version: 0)
            else {
                problems.add("corrupt read of \(prefix)-\(earlier)")
                return
            }
        }
    }
    cache.waitUntilIdle()
    if let first = problems.first { fail("\(problems.count) problems, first: \(first)") }
    print("ok stored=\(count) hits=\(hits.count)")

case "store-as":
    let directory = URL(fileURLWithPath: argument(2))
    guard let uid = UInt32(argument(3)) else { fail("bad uid") }
    guard setgid(uid) == 0, setuid(uid) == 0 else { fail("cannot drop to uid \(uid): errno \(errno)") }
    let cache = DiskCache(configuration: .init(directory: directory))
    do {
        try cache.storeData(Data("denied".utf8), forKey: "https://example.com/denied.png")
        print("stored")
    } catch {
        print("error \(error.code)")
    }

default:
    fail("unknown mode \(argument(1))")
}

/// A thread-safe tally of problems (keeps the first message).
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    private var tally = 0

    func add(_ message: String?) {
        lock.lock()
        tally += 1
        if let message, messages.isEmpty { messages.append(message) }
        lock.unlock()
    }

    var count: Int { lock.lock(); defer { lock.unlock() }; return tally }
    var first: String? { lock.lock(); defer { lock.unlock() }; return messages.first }
}
