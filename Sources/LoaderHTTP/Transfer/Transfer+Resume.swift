import Foundation
import ImageKernel

/// Resuming a body cut mid-way (RFC 9110 §14): the transfer asks again for the rest with
/// `Range: bytes=N-` and `If-Range`, when the first response offered `Accept-Ranges: bytes` and a
/// strong validator (a strong ETag, else Last-Modified). A 206 continues the bytes held; a 200
/// (the resource changed, or the server ignores ranges) starts the body over.
extension Transfer {
    /// Resumes per transfer before the failure is reported.
    static let maxResumes = 3

    /// The request headers that ask for the rest of the body.
    var resumeHeaderLines: [String] {
        guard let resume else { return [] }
        return ["Range: bytes=\(resume.offset)-", "If-Range: \(resume.validator)"]
    }

    /// Prepares the transfer to ask for the rest of its body after a transient failure mid-body.
    /// Returns false (changing nothing) when it cannot resume; the failure then stands.
    func prepareResume(after error: ImageKernelError) -> Bool {
        guard error.isTransient, error.code != .cancelled, resumes < Self.maxResumes, !body.isEmpty,
              let head = response, head.statusCode == 200 || (head.statusCode == 206 && resume != nil),
              !tokens.isEmpty, !tokens.contains(where: \.wantsChunks) else { return false }
        let first = firstResponse ?? head
        guard first.headers["accept-ranges"]?.lowercased().contains("bytes") == true else { return false }
        let validator: String
        if let etag = first.headers["etag"], !etag.hasPrefix("W/") {
            validator = etag
        } else if let lastModified = first.headers["last-modified"] {
            validator = lastModified
        } else {
            return false
        }
        firstResponse = first
        resume = (body.count, validator)
        resumes += 1
        response = nil
        abortError = nil
        expected = -1
        phase = .queued
        return true
    }

    /// Checks the answer to a resumed request when its head arrives. A 206 must continue at the
    /// offset held; a 200 starts the body over. Returns false (with ``abortError`` set) to refuse it.
    func acceptResumedHead(_ head: HTTPResponse) -> Bool {
        guard let resume else { return true }
        switch head.statusCode {
        case 206:
            let start = head.headers["content-range"].flatMap(Self.rangeStart)
            guard start == resume.offset else {
                abortError = .http(.invalidResponse, "the server resumed \(head.url.absoluteString) at \(start.map(String.init) ?? "no range"), not at byte \(resume.offset)")
                return false
            }
            if expected >= 0 { expected += Int64(resume.offset) }
        case 200:
            // The whole body again: what is held is dropped, progress holds until it is passed.
            // A progressive caller that joined meanwhile has had chunks it cannot take back.
            if tokens.contains(where: \.wantsChunks) {
                abortError = .http(.connectionLost, "the body of \(head.url.absoluteString) was cut and the server could only send it again from the start")
                return false
            }
            body.release()
            self.resume = nil
            firstResponse = nil
        default:
            break  // refused by the status check like any other status
        }
        return true
    }

    /// `bytes N-M/T` → N.
    private static func rangeStart(_ value: String) -> Int? {
        guard value.hasPrefix("bytes ") else { return nil }
        return value.dropFirst(6).split(separator: "-").first.flatMap { Int($0) }
    }
}
