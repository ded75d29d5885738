import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PostgresTestSupport
import Synchronization
import Testing

/// Two `tally serve` nodes sharing one PostgreSQL database (a real, throwaway server): a
/// request for a ledger the other node holds is redirected there; when the holder is killed,
/// the other node takes its ledger over once the lease runs out, and nothing acknowledged is lost.
@Suite("tally serve nodes on PostgreSQL")
struct PostgresNodesCommandTests {
    static let adminKey = "an-admin-key-shared-by-every-node"

    /// A `tally serve` node, started with a free port.
    final class Node {
        let process = Process()
        let port: Int

        init(name: String, data: String, postgres: String) throws {
            process.executableURL = TallyProcess.executable
            process.arguments = ["serve", "--data", data, "--port", "0", "--postgres", postgres, "--node", name, "--log-level", "warning"]
            var environment = ProcessInfo.processInfo.environment
            environment["TALLY_ADMIN_KEY"] = PostgresNodesCommandTests.adminKey
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = Pipe()
            try process.run()
            var text = ""
            while text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:\d+\n/) == nil {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            guard let match = text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/), let port = Int(match.output.1) else {
                process.terminate()
                throw NodeFailure(description: "node \(name) did not start: \(text)")
            }
            self.port = port
        }

        func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }

        /// Stops the node as an operator does (SIGTERM): it closes its ledgers, giving their leases up.
        func terminate() {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            process.waitUntilExit()
        }
    }

    struct NodeFailure: Error, CustomStringConvertible { let description: String }

    /// Never follows a redirect: the test sees the 307 and its Location.
    final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    /// One request; returns its status, its Location header and its body.
    static func send(
        _ method: String, _ url: String, key: String? = nil, body: String? = nil, bearer: String = adminKey
    ) throws -> (status: Int, location: String?, body: String) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        if let key { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        request.timeoutInterval = 20
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<(Int, String?, String)?>(nil)
        let failure = Mutex<String?>(nil)
        session.dataTask(with: request) { data, response, error in
            if let response = response as? HTTPURLResponse {
                outcome.withLock {
                    $0 = (response.statusCode, response.value(forHTTPHeaderField: "Location"), String(decoding: data ?? Data(), as: UTF8.self))
                }
            } else {
                failure.withLock { $0 = "\(error.map { "\($0)" } ?? "no response")" }
            }
            done.signal()
        }.resume()
        done.wait()
        if let result = outcome.withLock({ $0 }) { return result }
        throw NodeFailure(description: "\(method) \(url): \(failure.withLock { $0 } ?? "")")
    }

    @Test func aRequestIsRedirectedToTheHolderAndADeadHoldersLedgerIsTakenOver() throws {
        let cluster = try PostgresTestCluster.shared()
        let directory = try TemporaryDirectory()
        let nodeA = try Node(name: "node-a", data: directory.path + "/a", postgres: cluster.serverURL)
        defer { nodeA.stop() }
        let nodeB = try Node(name: "node-b", data: directory.path + "/b", postgres: cluster.serverURL)
        defer { nodeB.stop() }
        let a = "http://127.0.0.1:\(nodeA.port)", b = "http://127.0.0.1:\(nodeB.port)"
        let ledger = "home-\(UUID().uuidString.prefix(8).lowercased())"

        let created = try Self.send("POST", a + "/ledgers", body: #"{"id":"\#(ledger)","name":"Home","base_currency":"USD","time_zone":"UTC"}"#)
        #expect(created.status == 201, "\(created.body)")
        let deposit = #"{"amount":"100.00","currency":"USD"}"#
        let path = "/ledgers/\(ledger)/wealth/main/deposits"
        // Node A holds the ledger: node B sends the request there.
        let redirected = try Self.send("POST", b + path, key: "k1", body: deposit)
        #expect(redirected.status == 307, "\(redirected.body)")
        #expect(redirected.location == a + path)
        let followed = try Self.send("POST", try #require(redirected.location), key: "k1", body: deposit)
        #expect(followed.status == 201, "\(followed.body)")

        // Node A dies; once its lease runs out node B takes the ledger over.
        nodeA.stop()
        let killed = ContinuousClock.now
        var accepted: (status: Int, location: String?, body: String)?
        while ContinuousClock.now - killed < .seconds(30) {
            let attempt = try Self.send("POST", b + path, key: "k2", body: #"{"amount":"5.00","currency":"USD"}"#)
            if attempt.status == 201 {
                accepted = attempt
                break
            }
            #expect(attempt.status == 307 || attempt.status == 503, "\(attempt.status) \(attempt.body)")
            Thread.sleep(forTimeInterval: 0.2)
        }
        let takeover = ContinuousClock.now - killed
        #expect(accepted != nil, "node B never took the ledger over")
        #expect(takeover < .seconds(16), "took \(takeover): the lease is 10 s")
        // The retry of the command node A acknowledged is recognised on node B: nothing twice.
        let retry = try Self.send("POST", b + path, key: "k1", body: deposit)
        #expect(retry.status == 200 || retry.status == 201, "\(retry.body)")
        let balances = try Self.send("GET", b + "/ledgers/\(ledger)/balances")
        #expect(balances.status == 200, "\(balances.body)")
        #expect(balances.body.contains("73.50"), "Spend after 100.00 and 5.00 split 70/30: \(balances.body)")
    }

    @Test func aLedgersKeyIsAcceptedByTheNodeThatTakesItOverAndARevocationHoldsOnEveryNode() throws {
        let cluster = try PostgresTestCluster.shared()
        let directory = try TemporaryDirectory()
        let nodeA = try Node(name: "keys-a", data: directory.path + "/a", postgres: cluster.serverURL)
        defer { nodeA.stop() }
        let nodeB = try Node(name: "keys-b", data: directory.path + "/b", postgres: cluster.serverURL)
        defer { nodeB.stop() }
        let a = "http://127.0.0.1:\(nodeA.port)", b = "http://127.0.0.1:\(nodeB.port)"
        let ledger = "keys-\(UUID().uuidString.prefix(8).lowercased())"
        #expect(try Self.send("POST", a + "/ledgers", body: #"{"id":"\#(ledger)","name":"Home","base_currency":"USD","time_zone":"UTC"}"#).status == 201)
        let made = try Self.send("POST", a + "/ledgers/\(ledger)/keys", body: #"{"scopes":["read","write"]}"#)
        #expect(made.status == 201, "\(made.body)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(made.body.utf8)) as? [String: Any])
        let key = try #require(object["key"] as? String), id = try #require(object["id"] as? String)
        let path = "/ledgers/\(ledger)/wealth/main/deposits", deposit = #"{"amount":"10.00","currency":"USD"}"#
        #expect(try Self.send("POST", a + path, key: "d1", body: deposit, bearer: key).status == 201)

        // Node A is stopped; node B serves the ledger now, and its client's key with it.
        nodeA.terminate()
        let taken = try Self.send("POST", b + path, key: "d2", body: deposit, bearer: key)
        #expect(taken.status == 201, "\(taken.status) \(taken.body)")
        let listed = try Self.send("GET", b + "/ledgers/\(ledger)/keys")
        #expect(listed.status == 200 && listed.body.contains(id), "\(listed.body)")
        // Revoked on node B, the key is refused there at once.
        #expect(try Self.send("DELETE", b + "/ledgers/\(ledger)/keys/\(id)").status == 204)
        let refused = try Self.send("POST", b + path, key: "d3", body: deposit, bearer: key)
        #expect(refused.status == 401, "\(refused.status) \(refused.body)")
        // A key of another ledger, or a made-up one, opens nothing.
        #expect(try Self.send("GET", b + "/ledgers/\(ledger)/balances", bearer: "tally_0123456789abcdef_" + String(repeating: "0", count: 64)).status == 401)
    }
}
