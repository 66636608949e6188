import ImageKernel
import ImageProxyCore
import Metrics
import NIOCore

/// Whole answers of results in memory, kept per request target (path, `Accept`, client hints):
/// the prepared heads of a GET and a HEAD, the body's shared buffer and the counter the answer
/// counts in. A repeated request then costs one lookup here and one in the result cache (that the
/// result is still the one the answer was made from, ``ImageProxyService/isInMemory(_:)``),
/// instead of the route map, the result cache, the answer's header list and the lookups of its
/// head, its body and its counter. Each answer also keeps its heads with the current `Date`
/// written in, made again when the second changes, so an answer copies no head bytes either.
///
/// Only answers to requests without `If-None-Match` are kept (a 304 depends on the request's
/// tags). At most `limit` answers, holding at most `bodyBytes` of bodies (an answer holds its
/// body's buffer even after the result has left memory), are kept; past either they are all
/// dropped at once.
final class PreparedAnswers: Sendable {
    /// What an answer is kept under: the request's target and the fields its answer depends on.
    struct Key: Hashable, Sendable {
        let path: String
        let accept: String?
        let clientHints: ImgproxyClientHints?
    }

    /// One kept answer. Its dated heads are guarded by the lock of the ``PreparedAnswers`` that
    /// holds it.
    final class Answer: @unchecked Sendable {
        /// The result it was made from.
        let stamp: MemoryResultStamp
        /// The head of the GET answer and of the HEAD answer.
        let get: PreparedHead
        let head: PreparedHead
        /// The body of the GET answer (nil when it is empty).
        let body: ByteBuffer?
        /// `imageproxy_requests_total` for the answer's status and cache type.
        let counter: Metrics.Counter
        let status: Int
        /// The heads with `date` written in.
        fileprivate var date = ""
        fileprivate var datedGet = ByteBuffer()
        fileprivate var datedHead = ByteBuffer()

        init(stamp: MemoryResultStamp, get: PreparedHead, head: PreparedHead, body: ByteBuffer?, counter: Metrics.Counter, status: Int) {
            self.stamp = stamp
            self.get = get
            self.head = head
            self.body = body
            self.counter = counter
            self.status = status
        }
    }

    private let limit: Int
    private let bodyLimit: Int
    private let state = Locked<(answers: [Key: Answer], bodyBytes: Int)>(([:], 0))

    /// At most `limit` answers and `bodyBytes` bytes of their bodies.
    init(limit: Int = 4096, bodyBytes: Int) {
        self.limit = limit
        bodyLimit = bodyBytes
    }

    /// The answer kept for `key`, if any, with the head of a GET (or of a HEAD when `isHead`) whose
    /// `Date` is `date` (29 bytes of IMF-fixdate). Whether its result is still in memory is the
    /// caller's to check.
    func answer(for key: Key, isHead: Bool, date: String) -> (answer: Answer, head: ByteBuffer)? {
        state.withLock { state in
            guard let answer = state.answers[key] else { return nil }
            if answer.date != date {
                answer.date = date
                answer.datedGet = answer.get.with(date: date)
                answer.datedHead = answer.head.with(date: date)
            }
            return (answer, isHead ? answer.datedHead : answer.datedGet)
        }
    }

    /// Keeps `answer` for `key` (not when its body alone passes the byte limit).
    func keep(_ answer: Answer, for key: Key) {
        let bytes = answer.body?.readableBytes ?? 0
        guard bytes <= bodyLimit else { return }
        state.withLock { state in
            if let old = state.answers.removeValue(forKey: key) { state.bodyBytes -= old.body?.readableBytes ?? 0 }
            if state.answers.count >= limit || state.bodyBytes + bytes > bodyLimit {
                state.answers.removeAll(keepingCapacity: true)
                state.bodyBytes = 0
            }
            state.answers[key] = answer
            state.bodyBytes += bytes
        }
    }
}
