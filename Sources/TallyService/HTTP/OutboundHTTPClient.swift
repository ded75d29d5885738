package import Foundation
#if canImport(FoundationNetworking)
package import FoundationNetworking
#endif
import Synchronization

/// HTTP requests out of the process (webhook deliveries; the tests' clients of the service)
/// through Foundation's `URLSession`: libcurl and the system's TLS, so the build compiles no
/// HTTP client and no second TLS library of its own.
///
/// `start` returns as soon as the response head has arrived; the body then arrives as a
/// stream of chunks, read as it comes (a Server-Sent Events stream is read event by event) or
/// collected up to a bound. Corelibs Foundation's `URLSession` has no `bytes(for:)` on Linux,
/// hence the session's data delegate feeding an `AsyncThrowingStream`. Chunks that arrive
/// faster than they are read wait in that stream's buffer.
///
/// A request ends early when its task is cancelled, when its deadline passes, or when the
/// reader drops the body before its end: the transfer is cancelled and its connection closed.
package final class OutboundHTTPClient: Sendable {
    /// What the client does with a `3xx` answer that names a `Location`.
    package enum Redirects: Sendable {
        /// The `3xx` is the answer.
        case none
        /// Follows up to `maximum` redirects to URLs that `allowed` accepts (as browsers do: a
        /// `POST` answered 301, 302 or 303 becomes a `GET` without body; 307 and 308 keep both);
        /// a redirect beyond the maximum or to a URL refused is not followed, and is the answer.
        case follow(maximum: Int, allowed: @Sendable (URL) -> Bool)
    }

    /// A response whose head has arrived; its body is still arriving.
    package struct Response: Sendable {
        /// The status code.
        package let status: Int
        /// The header fields, by lowercased name (fields of one name joined by `, `).
        package let headers: [String: String]
        /// The body, chunk by chunk, as it arrives; dropping it before its end cancels the transfer.
        package let body: AsyncThrowingStream<Data, any Error>

        /// The value of header field `name` (any case), if present.
        package func header(_ name: String) -> String? { headers[name.lowercased()] }

        /// The whole body, or `OutboundHTTPError.bodyTooLarge` as soon as it passes `limit` bytes.
        package func collect(upTo limit: Int) async throws -> [UInt8] {
            var bytes: [UInt8] = []
            for try await chunk in body {
                guard bytes.count + chunk.count <= limit else { throw OutboundHTTPError.bodyTooLarge(limit: limit) }
                bytes += chunk
            }
            return bytes
        }
    }

    private let session: URLSession
    private let delegate: Delegate

    /// A client with a session of its own: no cookies, no cache, no credentials kept.
    package init(redirects: Redirects = .none) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let delegate = Delegate(redirects: redirects)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "tally.outbound-http"
        self.delegate = delegate
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit { session.invalidateAndCancel() }

    /// Sends `request` and returns when the response head has arrived. `deadline` bounds the
    /// whole exchange, the body's reading included (nil: no bound but the request's
    /// `timeoutInterval`, which curl applies to each wait for data); when it passes, the
    /// transfer is cancelled and the head's wait, or the body, throws `OutboundHTTPError.timedOut`.
    package func start(_ request: URLRequest, deadline: Duration? = nil) async throws -> Response {
        let task = session.dataTask(with: request)
        let (body, bodyContinuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let timer = deadline.map { deadline in
            Task { [delegate] in
                try await Task.sleep(for: deadline)
                delegate.timeOut(task)
            }
        }
        bodyContinuation.onTermination = { ending in
            timer?.cancel()
            if case .cancelled = ending { task.cancel() }
        }
        // Whether the transfer started, or the caller's task was cancelled first: a cancelled
        // `URLSessionTask` must not be resumed afterwards.
        let started = Mutex<Bool?>(nil)
        let head = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (head: CheckedContinuation<HTTPURLResponse, any Error>) in
                delegate.begin(task, head: head, body: bodyContinuation)
                let start = started.withLock { started in
                    if started == nil { started = true }
                    return started == true
                }
                if start { task.resume() } else { delegate.end(task, throwing: CancellationError()) }
            }
        } onCancel: {
            let running = started.withLock { started in
                if started == nil { started = false }
                return started == true
            }
            if running { task.cancel() }
        }
        var headers: [String: String] = [:]
        for case let (name as String, value as String) in head.allHeaderFields {
            headers[name.lowercased()] = value
        }
        return Response(status: head.statusCode, headers: headers, body: body)
    }

    /// The session's delegate: routes each task's callbacks to its waiting head and its body stream.
    /// `@unchecked Sendable`: its one mutable state is behind the mutex (NSObject is not Sendable).
    private final class Delegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        struct Exchange {
            var head: CheckedContinuation<HTTPURLResponse, any Error>?
            let body: AsyncThrowingStream<Data, any Error>.Continuation
            var redirects = 0
            var timedOut = false
        }

        let redirects: Redirects
        let exchanges = Mutex<[Int: Exchange]>([:])

        init(redirects: Redirects) { self.redirects = redirects }

        func begin(_ task: URLSessionTask, head: CheckedContinuation<HTTPURLResponse, any Error>,
                   body: AsyncThrowingStream<Data, any Error>.Continuation) {
            exchanges.withLock { $0[task.taskIdentifier] = Exchange(head: head, body: body) }
        }

        /// Ends a task's exchange that will not run: its head's wait and its body throw `error`.
        func end(_ task: URLSessionTask, throwing error: any Error) {
            guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            exchange.head?.resume(throwing: error)
            exchange.body.finish(throwing: error)
        }

        func timeOut(_ task: URLSessionTask) {
            let running = exchanges.withLock { exchanges in
                exchanges[task.taskIdentifier]?.timedOut = true
                return exchanges[task.taskIdentifier] != nil
            }
            if running { task.cancel() }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
            let head = exchanges.withLock { exchanges in
                defer { exchanges[dataTask.taskIdentifier]?.head = nil }
                return exchanges[dataTask.taskIdentifier]?.head
            }
            if let response = response as? HTTPURLResponse {
                head?.resume(returning: response)
                completionHandler(.allow)
            } else {
                head?.resume(throwing: OutboundHTTPError.notHTTP)
                completionHandler(.cancel)
            }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let body = exchanges.withLock { $0[dataTask.taskIdentifier]?.body }
            body?.yield(data)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            guard case .follow(let maximum, let allowed) = redirects, let url = request.url, allowed(url) else {
                return completionHandler(nil)
            }
            let follow = exchanges.withLock { exchanges in
                guard let count = exchanges[task.taskIdentifier]?.redirects, count < maximum else { return false }
                exchanges[task.taskIdentifier]?.redirects = count + 1
                return true
            }
            completionHandler(follow ? request : nil)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            let failure: (any Error)? = exchange.timedOut ? OutboundHTTPError.timedOut : error
            if let failure {
                exchange.head?.resume(throwing: failure)
                exchange.body.finish(throwing: failure)
            } else {
                exchange.head?.resume(throwing: OutboundHTTPError.notHTTP)
                exchange.body.finish()
            }
        }
    }
}

/// Why an outbound HTTP request failed, beside the transport's own errors (`URLError`).
package enum OutboundHTTPError: Error, CustomStringConvertible {
    /// The deadline passed before the exchange ended.
    case timedOut
    /// The body is longer than the bound it was read with.
    case bodyTooLarge(limit: Int)
    /// The answer is not an HTTP response.
    case notHTTP

    package var description: String {
        switch self {
        case .timedOut: "no whole answer within the deadline"
        case .bodyTooLarge(let limit): "the answer's body is longer than \(limit) bytes"
        case .notHTTP: "no HTTP answer"
        }
    }

    /// `error` in words for a person reading a log or a delivery's attempts: a `URLError`
    /// says what failed instead of `Error Domain=NSURLErrorDomain Code=-1004 "(null)"`.
    package static func describe(_ error: any Error) -> String {
        guard let error = error as? URLError else { return "\(error)" }
        let what = switch error.code {
        case .timedOut: "no data within the timeout"
        case .cannotConnectToHost: "the connection was refused"
        case .cannotFindHost, .dnsLookupFailed: "the host is unknown"
        case .networkConnectionLost: "the connection was lost"
        case .notConnectedToInternet: "no network"
        case .secureConnectionFailed: "the TLS handshake failed"
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
             .serverCertificateNotYetValid, .clientCertificateRejected:
            "the server's certificate was refused"
        case .cancelled: "cancelled"
        case .badServerResponse: "the answer is not valid HTTP"
        // curl's own words, as Foundation passes them on (`Failed writing header`: a header field
        // without a space after its colon, which Foundation's parser refuses).
        default: error.userInfo[NSLocalizedDescriptionKey] as? String ?? "network error"
        }
        return "\(what) (URLError \(error.code.rawValue))"
    }
}
