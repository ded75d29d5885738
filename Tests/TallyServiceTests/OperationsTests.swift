import Foundation
import Testing
@testable import TallyService

/// `GET /health` (no key) and `GET /metrics` (admin key).
@Suite struct OperationsTests {
    @Test func healthWithoutTheAdminKeySaysOnlyUpAndWithItNamesEveryOpenLedger() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("h1")
        try await service.createLedger("h2")
        #expect(try await service.command("/ledgers/h1/wealth/main/deposits", #"{"amount":"5.00"}"#).status == 201)
        let ledgerKey = try await service.createKey("h1", scopes: ["read", "admin"])
        for key in [nil, ledgerKey, "wrong-key"] {
            let anonymous = try await service.send(.GET, "/health", key: key)
            #expect(anonymous.status == 200)
            #expect(anonymous.json.keys.sorted() == ["status"], "nothing but up or degraded: \(anonymous.text)")
            #expect(anonymous.json["status"] as? String == "up")
            #expect(!anonymous.text.contains("h1"))
        }
        let health = try await service.send(.GET, "/health")
        #expect(health.status == 200)
        #expect(health.json["status"] as? String == "up")
        #expect(health.json["state"] as? String == "ok")
        let rows = health.json.objects("ledgers")
        #expect(rows.map { $0["id"] as? String } == ["h1", "h2"])
        #expect(rows.first?["head"] as? Int == 3)
        #expect(rows.allSatisfy { $0["at_head"] as? Bool == true && $0["read_models"] as? Int == $0["head"] as? Int })
        try await service.stopAndRemove()
    }

    @Test func metricsCountRequestsByOperationAndStatus() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("m")
        _ = try await service.command("/ledgers/m/wealth/main/deposits", #"{"amount":"5.00"}"#)
        _ = try await service.command("/ledgers/m/wealth/main/withdrawals", #"{"amount":"500.00"}"#)
        let metrics = try await service.send(.GET, "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.text.contains(#"tally_http_requests_total{operation="depositWealth",status="201"} 1"#), "\(metrics.text)")
        #expect(metrics.text.contains(#"tally_http_requests_total{operation="withdrawWealth",status="422"} 1"#))
        #expect(metrics.text.contains("tally_http_request_duration_seconds_bucket"))
        #expect(try await service.send(.GET, "/metrics", key: nil).status == 401)
        try await service.stopAndRemove()
    }
}
