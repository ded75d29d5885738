import Foundation
import NIOHTTP1
import Testing
@testable import TallyService

/// API keys: one household can never read or write another's ledger, on any route; a
/// missing, unknown or revoked key is 401; a missing scope 403; keys are kept hashed in an
/// owner-only file; each key has a rate limit.
@Suite struct AuthTests {
    /// Every route's path with its parameters filled in for `ledger`, and a body it would accept.
    static func request(for route: ServiceRoute, ledger: String) -> (HTTPMethod, String, String?) {
        var path = route.path.replacingOccurrences(of: "{ledger}", with: ledger)
        for (parameter, value) in [("{account}", "main"), ("{pot}", "holiday"), ("{asset}", "flat"), ("{key}", "0011223344556677")] {
            path = path.replacingOccurrences(of: parameter, with: value)
        }
        if route.operationId == "listAudit" { path += "?account=wealth:main:spend" }
        let body: String? = switch route.method {
        case .post: #"{"amount":"1.00","scopes":["read"],"id":"x","target":"1.00"}"#
        default: nil
        }
        return (HTTPMethod(rawValue: route.method.rawValue), path, body)
    }

    @Test func aKeyOfOneHouseholdIsRefusedOnEveryRouteOfAnother() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("alpha")
        try await service.createLedger("beta")
        #expect(try await service.command("/ledgers/alpha/wealth/main/deposits", #"{"amount":"100.00"}"#).status == 201)
        let betaKey = try await service.createKey("beta", scopes: ["read", "write", "admin"])
        let alphaKeys = try await service.send(.GET, "/ledgers/alpha/keys").text
        let alphaExport = try await service.send(.GET, "/ledgers/alpha/export").text

        let ledgerRoutes = TallyServer.routes.filter { if case .ledger = $0.security { true } else { false } }
        #expect(ledgerRoutes.count >= 20)
        for route in ledgerRoutes {
            let (method, path, body) = Self.request(for: route, ledger: "alpha")
            let reply = try await service.send(method, path, key: betaKey, body: body, headers: [("Idempotency-Key", "cross-\(route.operationId)")])
            #expect(reply.status == 403, "\(route.operationId): \(reply.status) \(reply.text)")
            #expect(reply.code == "forbidden_ledger", "\(route.operationId)")
            #expect(!reply.text.contains("100.00"), "\(route.operationId) leaks nothing")
        }
        // A ledger that does not exist answers the same: a key cannot probe for others.
        let probe = try await service.send(.GET, "/ledgers/gamma/balances", key: betaKey)
        #expect(probe.status == 403)
        for route in TallyServer.routes where route.security == .serverAdmin {
            let (method, path, body) = Self.request(for: route, ledger: "alpha")
            let reply = try await service.send(method, path, key: betaKey, body: body)
            #expect(reply.status == 403, "\(route.operationId)")
            #expect(reply.code == "admin_key_required")
        }
        #expect(try await service.send(.GET, "/ledgers/alpha/export").text == alphaExport, "alpha's log is unchanged")
        #expect(try await service.send(.GET, "/ledgers/alpha/keys").text == alphaKeys, "alpha's keys are unchanged")
        try await service.stopAndRemove()
    }

    @Test func everyRouteButHealthNeedsAValidKey() async throws {
        // One wrong key per route from one address: past the default failed-authentication burst.
        let service = try await ServiceHarness.start { $0.failedAuthenticationsBurst = 10_000 }
        try await service.createLedger("alpha")
        for route in TallyServer.routes {
            let (method, path, body) = Self.request(for: route, ledger: "alpha")
            let none = try await service.send(method, path, key: nil, body: body)
            let wrong = try await service.send(method, path, key: "tally_0011223344556677_not-a-real-secret", body: body)
            if route.security == .none {
                #expect(none.status == 200, "\(route.operationId)")
            } else {
                #expect(none.status == 401, "\(route.operationId) without a key: \(none.status)")
                #expect(none.code == "unauthorized")
                #expect(wrong.status == 401, "\(route.operationId) with a bad key: \(wrong.status)")
                #expect(wrong.code == "invalid_key")
            }
        }
        #expect(try await service.send(.GET, "/ledgers/alpha").json["head"] != nil)
        try await service.stopAndRemove()
    }

    @Test func scopesLimitWhatAKeyMayDoAndRevokingEndsIt() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("alpha")
        let reader = try await service.createKey("alpha", scopes: ["read"])
        let writer = try await service.createKey("alpha", scopes: ["write"])

        let denied = try await service.command("/ledgers/alpha/wealth/main/deposits", #"{"amount":"1.00"}"#, key: reader)
        #expect(denied.status == 403)
        #expect(denied.code == "missing_scope")
        #expect(try await service.command("/ledgers/alpha/wealth/main/deposits", #"{"amount":"1.00"}"#, key: writer).status == 201)
        #expect(try await service.send(.GET, "/ledgers/alpha/balances", key: writer).code == "missing_scope")
        #expect(try await service.send(.GET, "/ledgers/alpha/balances", key: reader).status == 200)
        #expect(try await service.send(.GET, "/ledgers/alpha/keys", key: reader).code == "missing_scope")

        let keys = try await service.send(.GET, "/ledgers/alpha/keys").json.objects("keys")
        #expect(keys.count == 2)
        #expect(!String(describing: keys).contains(reader), "a listed key never shows its secret")
        let readerId = String(reader.split(separator: "_")[1])
        #expect(try await service.send(.DELETE, "/ledgers/alpha/keys/\(readerId)").status == 204)
        #expect(try await service.send(.GET, "/ledgers/alpha/balances", key: reader).status == 401)
        #expect(try await service.send(.DELETE, "/ledgers/alpha/keys/\(readerId)").code == "key_not_found")
        try await service.stopAndRemove()
    }

    @Test func keysAreStoredHashedInAnOwnerOnlyFile() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("alpha")
        let key = try await service.createKey("alpha", scopes: ["read"])
        let path = service.directory + "/keys.json"
        let file = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!file.contains(key), "the key itself is never stored")
        #expect(!file.contains(ServiceHarness.adminKey))
        #expect(file.contains(KeyStore.hash(key)))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try await service.stopAndRemove()
    }

    @Test func withoutAnAdminKeyInTheEnvironmentOneIsMadeOnceAndKept() async throws {
        let directory = NSTemporaryDirectory() + "tally-service-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let first = try KeyStore(directory: directory, adminKey: nil)
        let key = try #require(first.generatedAdminKey)
        #expect(try first.principal(for: key, ledger: nil)?.isServerAdmin == true)
        let second = try KeyStore(directory: directory, adminKey: nil)
        #expect(second.generatedAdminKey == nil, "printed once: a later start makes none")
        #expect(try second.principal(for: key, ledger: nil)?.isServerAdmin == true)
        #expect(try second.principal(for: key + "x", ledger: nil) == nil)
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test func aKeyPastItsRateLimitIsTold429WithRetryAfter() async throws {
        let service = try await ServiceHarness.start { $0.rateLimitPerSecond = 1; $0.rateLimitBurst = 3 }
        try await service.createLedger("alpha")
        let key = try await service.createKey("alpha", scopes: ["read"])
        // Eight requests at once: a burst of 3 passes, and the rest arrive together, far inside
        // the 5 s it would take to refill five tokens, however slow the machine answers them.
        let replies = try await withThrowingTaskGroup(of: ServiceHarness.Reply.self) { group in
            for _ in 0..<8 { group.addTask { try await service.send(.GET, "/ledgers/alpha/balances", key: key) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let statuses = replies.map(\.status)
        #expect(statuses.filter { $0 == 200 }.count >= 3, "\(statuses)")
        #expect(Set(statuses).isSubset(of: [200, 429]), "\(statuses)")
        let limited = replies.filter { $0.status == 429 }
        #expect(!limited.isEmpty, "\(statuses)")
        #expect(limited.allSatisfy { $0.headers.first(name: "Retry-After") != nil }, "every 429 says when to retry")
        try await service.stopAndRemove()
    }
}
