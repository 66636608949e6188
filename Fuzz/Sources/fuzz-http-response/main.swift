import Foundation
import FuzzSupport
import ImageKernel
import LoaderHTTP

/// LoaderHTTP's response handling: the input is sent verbatim as the whole answer (status line,
/// headers, body) by a socket server on 127.0.0.1, and the loader loads it through libcurl,
/// progressively (so the body callbacks and the chunk hand-over run too). Every outcome must be a
/// result or a typed error within the timeout. Redirects are off: a fuzzed `Location` would send
/// the loader to hosts that do not exist here.
let server = RawResponseServer()
let loader: HTTPLoader = {
    var configuration = HTTPLoader.Configuration()
    configuration.timeout = .seconds(2)
    configuration.maxRedirects = 0
    configuration.maxBodySize = 1 << 20
    // Fuzzed 429s and 503s would slow the one host down for every later input.
    configuration.adaptsPerHostRate = false
    do {
        return try HTTPLoader(configuration: configuration)
    } catch {
        fatalError("the HTTP loader did not start: \(error)")
    }
}()

func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = fuzzInput(start, count)
    server.response.withLock { $0 = data }
    let url = URL(string: "http://127.0.0.1:\(server.port)/image.png")!
    let received = Locked<Int64>(0)
    runBlocking {
        let options: LoaderOptions = data.count % 2 == 0 ? .progressiveLoad : []
        let result = try? await loader.load(ImageRequest(url: url), options: options, context: ImageContext()) { progress in
            received.withLock { $0 = max($0, progress.received) }
        }
        if let result {
            precondition(result.data.count <= data.count, "a body larger than the whole answer")
        }
        // A round trip through the driver thread: it has finished the loop iteration that
        // completed this load and dropped its references to the body, so libFuzzer's per-input
        // leak check does not catch the body still in flight (LeakSanitizer cannot see Data's
        // references, whose pointers carry enum tag bits).
        _ = await loader.status()
    }
    precondition(received.withLock { $0 } <= Int64(data.count), "progress counted more bytes than were sent")
    return 0
}

runFuzzer { fuzz($0, $1) }
