import Foundation
import Testing
@testable import TallyService

/// The HTTP conventions every route keeps: percent-encoded path segments, 405 with `Allow`,
/// 401 with a bearer challenge, request ids, CORS for configured origins only.
@Suite struct HTTPConventionsTests {
    @Test func percentEncodedPathSegmentsNameWhatTheyDecodeTo() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("enc")
        let opened = try await service.command("/ledgers/enc/envelope-accounts", #"{"account":"Assets:Joint Savings","currency":"USD"}"#)
        #expect(opened.status == 201, "\(opened.text)")
        let closed = try await service.command("/ledgers/enc/envelope-accounts/Assets%3AJoint%20Savings/closure", "{}")
        #expect(closed.status == 201, "the account with a space and a colon is reached: \(closed.text)")
        let added = try await service.command("/ledgers/enc/assets", #"{"id":"manual:15","name":"Bike","category":"other","type":"cash","currency":"USD"}"#)
        #expect(added.status == 201, "\(added.text)")
        let valued = try await service.command("/ledgers/enc/assets/manual%3A15/valuations", #"{"value":"300.00"}"#)
        #expect(valued.status == 201, "\(valued.text)")
        try await service.stopAndRemove()
    }

    @Test func aMalformedPercentEscapeIsNoSegment() {
        // Clients re-encode a malformed escape before sending it, so the rule is held here.
        #expect(Call.percentDecoded("Assets%3AJoint%20Savings") == "Assets:Joint Savings")
        #expect(Call.percentDecoded("caf%C3%A9") == "café")
        #expect(Call.percentDecoded("manual%3") == nil, "a % without two hex digits")
        #expect(Call.percentDecoded("manual%zz") == nil)
        #expect(Call.percentDecoded("%FF%FE") == nil, "bytes that are not UTF-8")
        #expect(Call.percentDecoded("plain") == "plain")
    }

    @Test func aWrongMethodIs405NamingTheMethodsThePathAnswers() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("methods")
        let reply = try await service.send(.DELETE, "/ledgers/methods/balances")
        #expect(reply.status == 405)
        #expect(reply.headers.first(name: "Allow") == "GET")
        #expect(reply.code == "method_not_allowed")
        let keys = try await service.send(.PUT, "/ledgers/methods/keys")
        #expect(keys.headers.first(name: "Allow") == "GET, POST")
        let unknown = try await service.send(.GET, "/ledgers/methods/no-such-thing")
        #expect(unknown.status == 404)
        #expect(unknown.headers.first(name: "Allow") == nil)
        try await service.stopAndRemove()
    }

    @Test func unauthorizedAnswersCarryABearerChallenge() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("auth")
        let missing = try await service.send(.GET, "/ledgers/auth/balances", key: nil)
        #expect(missing.status == 401)
        #expect(missing.headers.first(name: "WWW-Authenticate")?.hasPrefix("Bearer") == true)
        let wrong = try await service.send(.GET, "/ledgers/auth/balances", key: "tally_00_wrong")
        #expect(wrong.status == 401)
        #expect(wrong.headers.first(name: "WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
        try await service.stopAndRemove()
    }

    @Test func everyResponseCarriesARequestIdTheClientsOwnWhenSane() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("ids")
        let first = try await service.send(.GET, "/ledgers/ids/balances")
        let second = try await service.send(.GET, "/ledgers/ids/balances")
        let firstId = try #require(first.headers.first(name: "X-Request-ID"))
        #expect(firstId.count >= 16)
        #expect(second.headers.first(name: "X-Request-ID") != firstId, "one id per request")
        let given = try await service.send(.GET, "/ledgers/ids/balances", headers: [("X-Request-ID", "app-7f3a:retry-2")])
        #expect(given.headers.first(name: "X-Request-ID") == "app-7f3a:retry-2")
        #expect(given.headers.first(name: "Tally-API-Version") == TallyServer.apiVersion)
        let unsafe = try await service.send(.GET, "/ledgers/ids/balances", headers: [("X-Request-ID", "a b\"c")])
        #expect(unsafe.headers.first(name: "X-Request-ID") != "a b\"c", "an id that could forge a log line is replaced")
        let notFound = try await service.send(.GET, "/nowhere")
        #expect(notFound.headers.first(name: "X-Request-ID") != nil, "problems too")
        try await service.stopAndRemove()
    }

    @Test func corsAnswersOnlyTheConfiguredOriginsAndNeverAStar() async throws {
        let service = try await ServiceHarness.start { $0.corsOrigins = ["https://app.example"] }
        try await service.createLedger("cors")
        let preflight = try await service.send(.OPTIONS, "/ledgers/cors/wealth/main/deposits", key: nil, headers: [
            ("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "authorization, idempotency-key, content-type"),
        ])
        #expect(preflight.status == 204)
        #expect(preflight.headers.first(name: "Access-Control-Allow-Origin") == "https://app.example")
        #expect(preflight.headers.first(name: "Access-Control-Allow-Methods")?.contains("POST") == true)
        #expect(preflight.headers.first(name: "Access-Control-Allow-Headers")?.contains("Idempotency-Key") == true)
        let read = try await service.send(.GET, "/ledgers/cors/balances", headers: [("Origin", "https://app.example")])
        #expect(read.status == 200)
        #expect(read.headers.first(name: "Access-Control-Allow-Origin") == "https://app.example")
        #expect(read.headers.first(name: "Access-Control-Expose-Headers")?.contains("X-Request-ID") == true)
        let other = try await service.send(.GET, "/ledgers/cors/balances", headers: [("Origin", "https://evil.example")])
        #expect(other.headers.first(name: "Access-Control-Allow-Origin") == nil)
        #expect(!read.headers.contains(name: "Access-Control-Allow-Credentials"))
        try await service.stopAndRemove()
    }
}
