import Crypto
import Foundation
import Hummingbird
import Logging
import Synchronization
import Tally
import TallyTestSupport
import Testing
@testable import TallyService

/// Webhooks delivered to a real HTTP listener on loopback (docs/notifications.md, "Webhooks"):
/// signed as Stripe signs, retried after 500s, in order, redelivered by hand, disabled after
/// the retry window, and resumed by a restarted server without loss or flood.
@Suite(.serialized) struct WebhookTests {
    /// The receiving end: checks each request's signature with the secret it is given,
    /// answers with the next scripted status (200 once the script is used up), records all.
    final class Receiver: Sendable {
        struct Received: Sendable {
            let delivery: String
            let notification: String
            let signatureValid: Bool
            let status: Int
            let body: String
        }
        let received = Mutex<[Received]>([])
        let script = Mutex<[Int]>([])
        let failing = Mutex(false)
        let secret = Mutex("")
        private let task = Mutex<Task<Void, any Error>?>(nil)
        let port: Int

        private init(port: Int, task: Task<Void, any Error>) {
            self.port = port
            self.task.withLock { $0 = task }
        }

        static func start() async throws -> Receiver {
            let (ports, continuation) = AsyncStream<Int>.makeStream()
            let box = Mutex<Receiver?>(nil)
            let router = Router()
            router.post("/hook") { request, context -> Response in
                guard let receiver = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
                return try await receiver.receive(request)
            }
            var logger = Logger(label: "webhook.receiver")
            logger.logLevel = .warning
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                  onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
            let task = Task { try await app.runService() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw ServiceError("the receiver did not start") }
            let receiver = Receiver(port: port, task: task)
            box.withLock { $0 = receiver }
            return receiver
        }

        func receive(_ request: Request) async throws -> Response {
            var request = request
            let body = String(buffer: try await request.collectBody(upTo: 1 << 20))
            let header = request.headers[.init("Tally-Signature")!] ?? ""
            var timestamp = "", signature = ""
            for part in header.split(separator: ",") {
                if part.hasPrefix("t=") { timestamp = String(part.dropFirst(2)) }
                if part.hasPrefix("v1=") { signature = String(part.dropFirst(3)) }
            }
            let key = SymmetricKey(data: Data(secret.withLock { $0 }.utf8))
            let expected = HMAC<SHA256>.authenticationCode(for: Data("\(timestamp).\(body)".utf8), using: key).map { String(format: "%02x", $0) }.joined()
            let fresh = abs((Int64(timestamp) ?? 0) - Int64(Date().timeIntervalSince1970)) < 300
            let status = failing.withLock { $0 } ? 500 : script.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
            let json = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
            let notification = (json?["notification"] as? [String: Any])?["id"] as? String ?? "?"
            received.withLock {
                $0.append(Received(delivery: request.headers[.init("Tally-Delivery")!] ?? "?", notification: notification,
                                   signatureValid: expected == signature && fresh, status: status, body: body))
            }
            return Response(status: HTTPResponse.Status(code: status))
        }

        /// The notification ids answered 2xx, in order.
        var delivered: [String] { received.withLock { $0.filter { (200..<300).contains($0.status) }.map(\.notification) } }

        func stop() { task.withLock { $0?.cancel() } }
    }

    /// The retry window of the test of a webhook failing past it, in microseconds.
    static let window: Int64 = 1_000_000

    static func fast(_ configuration: inout TallyServer.Configuration) {
        configuration.webhooks.pollMilliseconds = 40
        configuration.webhooks.retryBaseMilliseconds = 50
        configuration.webhooks.retryMaxMilliseconds = 200
    }

    @Test func depositsAreDeliveredSignedInOrderAfterRetriesAndRedeliveredByHand() async throws {
        let receiver = try await Receiver.start()
        defer { receiver.stop() }
        receiver.script.withLock { $0 = [500, 500] }
        let service = try await ServiceHarness.start(configure: Self.fast)
        try await service.createLedger("home")
        #expect(try await service.command("/ledgers/home/wealth/main/deposits", #"{"amount":"5.00"}"#).status == 201, "before the webhook: not sent")
        let created = try await service.send(.POST, "/ledgers/home/webhooks", body: #"{"url":"http://127.0.0.1:\#(receiver.port)/hook","kinds":["deposit_received"]}"#)
        #expect(created.status == 201, "\(created.text)")
        let secret = try #require(created.json["secret"] as? String)
        let webhook = try #require(created.json["id"] as? String)
        receiver.secret.withLock { $0 = secret }
        var sequences: [Int] = []
        for amount in ["100.00", "200.00", "300.00"] {
            let deposit = try await service.command("/ledgers/home/wealth/main/deposits", #"{"amount":"\#(amount)"}"#)
            sequences.append(try #require(deposit.json.objects("events").first?["seq"] as? Int))
        }
        let expected = sequences.map { "deposit_received:\($0)" }
        try await waitFor("three deliveries") { receiver.delivered.count >= 3 }
        #expect(receiver.delivered == expected, "in order, each once")
        #expect(receiver.received.withLock { $0.allSatisfy(\.signatureValid) }, "every request is signed with the secret")
        #expect(receiver.received.withLock { $0.prefix(3).map(\.status) } == [500, 500, 200], "the first is retried after two 500s")
        // The receiver counts a delivery when it answers; the service records it delivered when
        // the answer reaches it, a moment later.
        var list: [[String: Any]] = []
        try await waitFor("three deliveries recorded as delivered") {
            list = try await service.send(.GET, "/ledgers/home/webhooks/\(webhook)/deliveries").json.objects("deliveries")
            return list.count == 3 && list.allSatisfy { $0["state"] as? String != "pending" }
        }
        #expect(list.map { $0["notification_id"] as? String } == expected.map(Optional.some))
        #expect(list.map { $0["state"] as? String } == ["delivered", "delivered", "delivered"])
        #expect(list.first?.objects("attempts").map { $0["status"] as? Int } == [500, 500, 200])
        #expect(Set(list.compactMap { $0["id"] as? String }).count == 3)

        // A redelivery sends the same delivery id and body again.
        let second = try #require(list[1]["id"] as? String)
        let redelivered = try await service.send(.POST, "/ledgers/home/webhooks/\(webhook)/deliveries/\(second)/redeliver")
        #expect(redelivered.status == 202, "\(redelivered.text)")
        try await waitFor("the redelivery") { receiver.delivered.count == 4 }
        let all = receiver.received.withLock { $0 }
        #expect(all.last?.delivery == second)
        #expect(all.last?.body == all.first { $0.delivery == second && $0.status == 200 }?.body)
        #expect(try await service.send(.POST, "/ledgers/home/webhooks/\(webhook)/deliveries/dlv_none/redeliver").status == 404)
        try await service.stopAndRemove()
    }

    @Test func aRestartedServerResumesMidRetryWithoutLossOrFlood() async throws {
        let receiver = try await Receiver.start()
        defer { receiver.stop() }
        let directory = NSTemporaryDirectory() + "tally-service-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var service = try await ServiceHarness.start(directory: directory, configure: Self.fast)
        try await service.createLedger("home")
        let created = try await service.send(.POST, "/ledgers/home/webhooks", body: #"{"url":"http://127.0.0.1:\#(receiver.port)/hook"}"#)
        receiver.secret.withLock { $0 = created.json["secret"] as? String ?? "" }
        let webhook = try #require(created.json["id"] as? String)
        _ = try await service.command("/ledgers/home/wealth/main/deposits", #"{"amount":"1.00"}"#)
        try await waitFor("the first delivery") { receiver.delivered.count == 1 }
        // The receiver goes down; two deposits wait, retried, when the server stops.
        receiver.failing.withLock { $0 = true }
        _ = try await service.command("/ledgers/home/wealth/main/deposits", #"{"amount":"2.00"}"#)
        _ = try await service.command("/ledgers/home/wealth/main/deposits", #"{"amount":"3.00"}"#)
        try await waitFor("retries under way") { receiver.received.withLock { $0.filter { $0.status == 500 }.count >= 2 } }
        try await service.stop()
        receiver.failing.withLock { $0 = false }
        service = try await ServiceHarness.start(directory: directory, configure: Self.fast)
        try await waitFor("the waiting deliveries") { receiver.delivered.count == 3 }
        // Nothing is pending any more, so nothing more can be sent: no flood after the restart.
        try await waitFor("every delivery settled") {
            try await service.send(.GET, "/ledgers/home/webhooks/\(webhook)/deliveries").json.objects("deliveries")
                .allSatisfy { $0["state"] as? String == "delivered" }
        }
        let delivered = receiver.delivered
        #expect(delivered.count == 3 && Set(delivered).count == 3, "each notification delivered once: \(delivered)")
        let deliveries = try await service.send(.GET, "/ledgers/home/webhooks/\(webhook)/deliveries").json.objects("deliveries")
        #expect(deliveries.map { $0["notification_id"] as? String } == delivered.map(Optional.some), "none skipped, in order")
        try await service.stop()
    }

    @Test func aWebhookFailingPastItsWindowIsDisabledAndADestinationIsChecked() async throws {
        let receiver = try await Receiver.start()
        defer { receiver.stop() }
        receiver.failing.withLock { $0 = true }
        let service = try await ServiceHarness.start { configuration in
            Self.fast(&configuration)
            configuration.webhooks.retryWindowSeconds = Int(Self.window / 1_000_000)
        }
        try await service.createLedger("home")
        // A second, healthy receiver is told when a webhook is disabled (the service's own kind).
        let watcher = try await Receiver.start()
        defer { watcher.stop() }
        let watching = try await service.send(.POST, "/ledgers/home/webhooks", body: #"{"url":"http://127.0.0.1:\#(watcher.port)/hook","kinds":["webhook_disabled"]}"#)
        #expect(watching.status == 201, "\(watching.text)")
        watcher.secret.withLock { $0 = watching.json["secret"] as? String ?? "" }
        let created = try await service.send(.POST, "/ledgers/home/webhooks", body: #"{"url":"http://127.0.0.1:\#(receiver.port)/hook","kinds":["deposit_received"]}"#)
        let webhook = try #require(created.json["id"] as? String)
        let before = Instant.now
        _ = try await service.command("/ledgers/home/wealth/main/deposits", #"{"amount":"1.00"}"#)
        try await waitFor("the webhook disabled") {
            try await service.send(.GET, "/ledgers/home/webhooks").json.objects("webhooks").first { $0["id"] as? String == webhook }?["enabled"] as? Bool == false
        }
        let listed = try await service.send(.GET, "/ledgers/home/webhooks").json.objects("webhooks").first { $0["id"] as? String == webhook }
        #expect((listed?["disabled_reason"] as? String)?.contains("failed") == true)
        #expect(listed?["secret"] == nil, "the secret is shown once")
        let deliveries = try await service.send(.GET, "/ledgers/home/webhooks/\(webhook)/deliveries").json.objects("deliveries")
        #expect(deliveries.first?["state"] as? String == "failed")
        let attempts = deliveries.first?.objects("attempts") ?? []
        let tries = attempts.count
        // Retried until the window passed: a first try that began inside the window was
        // followed by another (only a try recorded past the window fails the delivery).
        // A first try that began only after the window, the suite's threads being busy
        // elsewhere, rightly fails alone.
        let firstTry = try Instant(parsing: try #require(attempts.first?["at"] as? String))
        let firstTryInWindow = firstTry.microsecondsSinceEpoch - before.microsecondsSinceEpoch < Self.window
        #expect(tries >= (firstTryInWindow ? 2 : 1), "\(tries) tries, the first \(firstTry.microsecondsSinceEpoch - before.microsecondsSinceEpoch) µs after the deposit")

        // The ledger tells so: a notification naming the webhook, the delivery and the way back.
        let failed = try #require(deliveries.first?["id"] as? String)
        let told = try await service.send(.GET, "/ledgers/home/notifications?kind=webhook_disabled")
        #expect(told.status == 200, "\(told.text)")
        let note = try #require(told.json.objects("notifications").first)
        #expect(note["id"] as? String == "webhook_disabled:\(webhook):1")
        #expect(note["subject"] as? String == "webhook:\(webhook)")
        #expect((note["message"] as? String)?.contains("\(failed) failed \(tries) times") == true, "\(note)")
        #expect((note["message"] as? String)?.contains("redeliver") == true)
        #expect((note["figures"] as? [String: String])?["delivery"] == failed)
        let earlier = try await service.send(.GET, "/ledgers/home/notifications?kind=webhook_disabled&as_of=\(before.description)")
        #expect(earlier.json.objects("notifications").isEmpty, "not before it happened: \(earlier.text)")
        try await waitFor("the watcher told") { watcher.delivered == ["webhook_disabled:\(webhook):1"] }
        #expect(watcher.received.withLock { $0.allSatisfy(\.signatureValid) })

        // Redelivered into a receiver still down, it is disabled again: a second notification.
        #expect(try await service.send(.POST, "/ledgers/home/webhooks/\(webhook)/deliveries/\(failed)/redeliver").status == 202)
        try await waitFor("the webhook disabled again") { watcher.delivered.count == 2 }
        #expect(watcher.delivered.last == "webhook_disabled:\(webhook):2")
        let both = try await service.send(.GET, "/ledgers/home/notifications?kind=webhook_disabled").json.objects("notifications")
        #expect(both.map { $0["id"] as? String } == ["webhook_disabled:\(webhook):1", "webhook_disabled:\(webhook):2"])

        #expect(try await service.send(.POST, "/ledgers/home/webhooks", body: #"{"url":"http://example.com/hook"}"#).status == 400)
        #expect(try await service.send(.POST, "/ledgers/home/webhooks", body: #"{"url":"ftp://127.0.0.1/hook"}"#).status == 400)
        #expect(try await service.send(.POST, "/ledgers/home/webhooks", body: #"{"url":"https://example.com/hook","kinds":["nope"]}"#).status == 422)
        try await service.stopAndRemove()
    }
}
