import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Logging
import NIOCore
import Synchronization
import TallyTestSupport
import Testing
@testable import TallyService

/// The HTTP client of webhooks and of these tests (`OutboundHTTPClient`, on `URLSession`),
/// against a real server on loopback: a deadline over the whole answer, a body read up to a
/// bound, redirects followed only where allowed and only so far, and a transfer cancelled
/// when its reader goes away or its task is cancelled.
@Suite struct OutboundHTTPClientTests {
    /// A server with one route per behaviour; `/held` answers only once `release()` is called.
    final class Server: Sendable {
        let port: Int
        let streamEnded = Mutex(false)
        private let held = AsyncStream<Void>.makeStream()
        private let task = Mutex<Task<Void, any Error>?>(nil)

        static let bigBody = (0..<100 * 1024).map { UInt8($0 % 251) }

        private init(port: Int) { self.port = port }

        static func start() async throws -> Server {
            let (ports, continuation) = AsyncStream<Int>.makeStream()
            let box = Mutex<Server?>(nil)
            let router = Router()
            router.get("/held") { _, _ -> Response in
                let stream = box.withLock({ $0 })?.held.stream ?? AsyncStream { $0.finish() }
                for await _ in stream {}
                return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "released")))
            }
            router.get("/big") { _, _ -> Response in
                Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bigBody)))
            }
            router.get("/target") { _, _ -> Response in
                Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "target")))
            }
            router.post("/redirect") { request, _ -> Response in
                Response(status: .found, headers: [.location: request.uri.queryParameters.get("to") ?? "/target"])
            }
            router.get("/redirect") { request, _ -> Response in
                Response(status: .found, headers: [.location: request.uri.queryParameters.get("to") ?? "/target"])
            }
            router.get("/loop") { _, _ -> Response in Response(status: .found, headers: [.location: "/loop"]) }
            router.get("/endless") { _, _ -> Response in
                Response(status: .ok, body: ResponseBody { writer in
                    defer { box.withLock { $0 }?.streamEnded.withLock { $0 = true } }
                    // Paced, so that a reader that stays gets chunks and one that left is noticed.
                    while true {
                        try await writer.write(ByteBuffer(string: "chunk\n"))
                        try await Task.sleep(for: .milliseconds(20))
                    }
                })
            }
            var logger = Logger(label: "outbound-http.server")
            logger.logLevel = .critical
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                  onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
            let task = Task { try await app.runService() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw ServiceError("the server did not start") }
            let server = Server(port: port)
            server.task.withLock { $0 = task }
            box.withLock { $0 = server }
            return server
        }

        func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

        func release() { held.continuation.finish() }

        func stop() {
            release()
            task.withLock { $0?.cancel() }
        }
    }

    @Test func anAnswerLaterThanTheDeadlineFailsAndOneWithinItArrives() async throws {
        let server = try await Server.start()
        defer { server.stop() }
        let client = OutboundHTTPClient()
        await #expect(throws: OutboundHTTPError.self, "the held answer is later than the deadline") {
            _ = try await client.start(URLRequest(url: server.url("/held")), deadline: .milliseconds(300))
        }
        let answer = try await client.start(URLRequest(url: server.url("/target")), deadline: .seconds(120))
        #expect(answer.status == 200)
        #expect(try await answer.collect(upTo: 1_024) == Array("target".utf8))
    }

    @Test func aBodyIsReadUpToItsBoundAndNoFurther() async throws {
        let server = try await Server.start()
        defer { server.stop() }
        let client = OutboundHTTPClient()
        let whole = try await client.start(URLRequest(url: server.url("/big")), deadline: .seconds(120))
        #expect(whole.header("content-length") == String(Server.bigBody.count))
        #expect(try await whole.collect(upTo: 1 << 20) == Server.bigBody)
        let bounded = try await client.start(URLRequest(url: server.url("/big")), deadline: .seconds(120))
        do {
            _ = try await bounded.collect(upTo: 64 * 1024)
            Issue.record("100 KiB read under a bound of 64 KiB")
        } catch OutboundHTTPError.bodyTooLarge(let limit) {
            #expect(limit == 64 * 1024)
        }
    }

    @Test func redirectsAreFollowedOnlyToAllowedURLsAndOnlySoFar() async throws {
        let server = try await Server.start()
        defer { server.stop() }
        let following = OutboundHTTPClient(redirects: .follow(maximum: 5, allowed: { $0.path != "/forbidden" }))
        let followed = try await following.start(URLRequest(url: server.url("/redirect?to=/target")), deadline: .seconds(120))
        #expect(followed.status == 200)
        #expect(try await followed.collect(upTo: 1_024) == Array("target".utf8))

        var post = URLRequest(url: server.url("/redirect?to=/target"))
        post.httpMethod = "POST"
        post.httpBody = Data("{}".utf8)
        let posted = try await following.start(post, deadline: .seconds(120))
        #expect(posted.status == 200, "a POST answered 302 goes on as a GET, as browsers do")

        let refused = try await following.start(URLRequest(url: server.url("/redirect?to=/forbidden")), deadline: .seconds(120))
        #expect(refused.status == 302, "a redirect to a URL refused is the answer")
        #expect(refused.header("Location") == "/forbidden")

        let looping = try await following.start(URLRequest(url: server.url("/loop")), deadline: .seconds(120))
        #expect(looping.status == 302, "past the maximum, the redirect is the answer")

        let plain = try await OutboundHTTPClient().start(URLRequest(url: server.url("/redirect?to=/target")), deadline: .seconds(120))
        #expect(plain.status == 302, "a client that follows none answers the 302")
    }

    @Test func aReaderThatLeavesAndACancelledTaskEndTheTransfer() async throws {
        let server = try await Server.start()
        defer { server.stop() }
        let client = OutboundHTTPClient()
        let reading = Task {
            let response = try await client.start(URLRequest(url: server.url("/endless")))
            var chunks = response.body.makeAsyncIterator()
            return try await chunks.next()
        }
        #expect(try await reading.value == Data("chunk\n".utf8))
        try await waitFor("the server saw the reader leave") { server.streamEnded.withLock { $0 } }

        let waiting = Task { try await client.start(URLRequest(url: server.url("/held"))) }
        waiting.cancel()
        do {
            let answer = try await withDeadline(seconds: 120, "the cancelled request") { try await waiting.value }
            Issue.record("a cancelled task's request was answered \(answer.status)")
        } catch let error as ServiceError {
            Issue.record("\(error)")
        } catch {
            // Cancelled: it ended without its answer, as it should.
        }
    }
}
