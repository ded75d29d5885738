import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import TallyService

/// The server protects itself from clients that hold connections, send bodies it will not
/// take, or guess keys.
@Suite struct ServerProtectionTests {
    /// A raw connection to the server: what a misbehaving client sends, byte for byte.
    private static func rawExchange(
        port: Int, send: String, readUntil stop: @escaping @Sendable (String) -> Bool = { _ in false }
    ) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return try await channel.executeThenClose { inbound, outbound in
            do {
                try await outbound.write(ByteBuffer(string: send))
            } catch ChannelError.ioOnClosedChannel {
                // The server closed first (its deadline passed before this write): no answer.
                return ""
            }
            var received = ""
            do {
                for try await chunk in inbound {
                    received += String(buffer: chunk)
                    if stop(received) { break }
                }
            } catch ChannelError.ioOnClosedChannel {}
            return received
        }
    }

    @Test func aClientTooSlowToSendItsHeadOrBodyIsDisconnected() async throws {
        let service = try await ServiceHarness.start {
            // Long enough for a prompt client on a loaded machine, short for a test.
            $0.headerReadTimeoutMilliseconds = 2_000
            $0.bodyReadTimeoutMilliseconds = 2_000
        }
        // Half a head, then nothing (slow loris): the connection closes with no answer.
        let partialHead = try await withDeadline(seconds: 20, "closing a connection that never finishes its head") {
            try await Self.rawExchange(port: service.port, send: "GET /health HTTP/1.1\r\nHost: tally\r\nX-Slow: 1")
        }
        #expect(partialHead.isEmpty, "closed without an answer: \(partialHead)")
        // A whole head announcing 100 bytes, then 10 of them.
        let partialBody = try await withDeadline(seconds: 20, "closing a connection that never finishes its body") {
            try await Self.rawExchange(port: service.port, send: "POST /ledgers HTTP/1.1\r\nHost: tally\r\nContent-Length: 100\r\n\r\n{\"id\":\"a\"")
        }
        // The status line, not the whole answer: a random request id holds "201" now and then
        // (X-Request-ID: 5201caa3…, which failed this check once).
        #expect(!partialBody.hasPrefix("HTTP/1.1 201"), "nothing was created: \(partialBody)")
        // A client that sends its request promptly is answered, and may keep the connection.
        let prompt = try await Self.rawExchange(port: service.port, send: "GET /health HTTP/1.1\r\nHost: tally\r\n\r\n") { $0.contains("\r\n\r\n") && $0.contains("}") }
        #expect(prompt.hasPrefix("HTTP/1.1 200"), "\(prompt)")
        try await service.stopAndRemove()
    }

    @Test func aBodyAnnouncedTooLargeIsRefusedBeforeItIsSent() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("big")
        // The head alone: the answer must come without a byte of the body.
        let head = "POST /ledgers/big/wealth/main/deposits HTTP/1.1\r\nHost: tally\r\nAuthorization: Bearer \(ServiceHarness.adminKey)\r\n"
            + "Idempotency-Key: huge-1\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n"
        let answer = try await withDeadline(seconds: 20, "the early 413") {
            try await Self.rawExchange(port: service.port, send: head) { $0.contains("\r\n\r\n") }
        }
        #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
        let importHead = "POST /ledgers/big/imports/events HTTP/1.1\r\nHost: tally\r\nAuthorization: Bearer \(ServiceHarness.adminKey)\r\n"
            + "Content-Length: 999999999999\r\n\r\n"
        let importAnswer = try await withDeadline(seconds: 20, "the early 413 of an import") {
            try await Self.rawExchange(port: service.port, send: importHead) { $0.contains("\r\n\r\n") }
        }
        #expect(importAnswer.hasPrefix("HTTP/1.1 413"), "\(importAnswer)")
        try await service.stopAndRemove()
    }

    @Test func guessingKeysFromOneAddressIsSlowedDownAndThenEvenARightKeyWaits() async throws {
        let service = try await ServiceHarness.start {
            $0.failedAuthenticationsBurst = 5
            $0.failedAuthenticationsPerMinute = 1
        }
        try await service.createLedger("guess")
        var statuses: [Int] = []
        for attempt in 0..<8 {
            statuses.append(try await service.send(.GET, "/ledgers/guess/balances", key: "tally_guess\(attempt)_wrong").status)
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 }, "\(statuses)")
        #expect(statuses.suffix(2).allSatisfy { $0 == 429 }, "\(statuses)")
        let limited = try await service.send(.GET, "/ledgers/guess/balances", key: "tally_another_wrong")
        #expect(limited.status == 429)
        #expect(limited.code == "authentication_rate_limited")
        #expect(limited.headers.first(name: "Retry-After") != nil)
        let rightKey = try await service.send(.GET, "/ledgers/guess/balances")
        #expect(rightKey.status == 429, "the address waits, whatever key it sends now")
        #expect(try await service.send(.GET, "/health", key: nil).status == 200, "a request without a key is not authentication")
        try await service.stopAndRemove()
    }
}
