// serve-load: drives a running `tally serve` on loopback and measures it (not a test).
//
//   serve-load mixed  --port P --admin-key K --ledgers 100 --clients 64 --seconds 60 --data DIR
//   serve-load single --port P --admin-key K --clients 64 --seconds 10
//   serve-load library --dir DIR --clients 64 --seconds 10
//   serve-load verify --data DIR
//
// mixed: creates the ledgers (with a read-write key each), then every client loops until
// the time is up, picking a ledger at random and one of: a deposit (Idempotency-Key), a
// purchase, a balances query, a wealth summary, an audit page; it prints requests/s,
// p50/p99/max latency and errors by status. single: one ledger, deposits only. library:
// the same deposits through the library's async API in this process. verify (after the
// server has stopped): every ledger's balances from its read models equal a full replay
// of its log.
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Tally

struct Arguments {
    var values: [String: String] = [:]
    let mode: String

    init() {
        let arguments = CommandLine.arguments.dropFirst()
        mode = arguments.first ?? "help"
        var iterator = arguments.dropFirst().makeIterator()
        while let name = iterator.next() {
            guard name.hasPrefix("--"), let value = iterator.next() else { fatalError("arguments are --name value pairs: \(name)") }
            values[String(name.dropFirst(2))] = value
        }
    }

    func string(_ name: String) -> String {
        guard let value = values[name] else { fatalError("--\(name) is required") }
        return value
    }

    func int(_ name: String, _ fallback: Int) -> Int { values[name].flatMap(Int.init) ?? fallback }
}

/// Latencies in microseconds and outcomes, merged from every client.
struct Tally_ {
    var latencies: [Int64] = []
    var statuses: [Int: Int] = [:]
    var failures = 0

    mutating func merge(_ other: Tally_) {
        latencies += other.latencies
        for (status, count) in other.statuses { statuses[status, default: 0] += count }
        failures += other.failures
    }

    func report(_ label: String, seconds: Double, expected: Set<Int>) {
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
        }
        let errors = statuses.filter { !expected.contains($0.key) }.values.reduce(0, +) + failures
        print(String(format: "%@: %d requests in %.1f s = %.0f req/s; latency p50 %.2f ms, p99 %.2f ms, max %.2f ms; errors %d",
                     label, sorted.count, seconds, Double(sorted.count) / seconds, percentile(0.50), percentile(0.99),
                     (sorted.last.map(Double.init) ?? 0) / 1000, errors))
        print("  by status: \(statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))\(failures > 0 ? ", transport failures: \(failures)" : "")")
    }
}

struct Client {
    let http: HTTPClient
    let base: String

    func send(_ method: HTTPMethod, _ path: String, key: String, body: String? = nil, idempotencyKey: String? = nil) async throws -> (Int, [UInt8]) {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        if let idempotencyKey { request.headers.add(name: "Idempotency-Key", value: idempotencyKey) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), Array(bytes.readableBytesView))
    }
}

func now() -> ContinuousClock.Instant { ContinuousClock.now }
func micros(_ duration: Duration) -> Int64 { duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000 }

func makeHTTPClient(_ clients: Int) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: clients)
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}

func createLedgers(_ client: Client, admin: String, count: Int, prefix: String) async throws -> [(String, String)] {
    var ledgers: [(String, String)] = []
    for index in 0..<count {
        let id = "\(prefix)\(index)"
        let (status, body) = try await client.send(.POST, "/ledgers", key: admin, body: #"{"id":"\#(id)"}"#)
        guard status == 201 else { fatalError("creating \(id): \(status) \(String(decoding: body, as: UTF8.self))") }
        let (keyStatus, keyBody) = try await client.send(.POST, "/ledgers/\(id)/keys", key: admin, body: #"{"scopes":["read","write"]}"#)
        guard keyStatus == 201, let object = try JSONSerialization.jsonObject(with: Data(keyBody)) as? [String: Any], let key = object["key"] as? String else {
            fatalError("a key for \(id): \(keyStatus)")
        }
        ledgers.append((id, key))
    }
    return ledgers
}

func mixed(_ arguments: Arguments) async throws {
    let clients = arguments.int("clients", 64)
    let seconds = arguments.int("seconds", 60)
    let http = makeHTTPClient(clients)
    let client = Client(http: http, base: "http://127.0.0.1:\(arguments.string("port"))")
    let ledgers = try await createLedgers(client, admin: arguments.string("admin-key"), count: arguments.int("ledgers", 100), prefix: "household-")
    print("created \(ledgers.count) ledgers, each with a read-write key; \(clients) clients for \(seconds) s")
    let started = now()
    let deadline = started + .seconds(seconds)
    let total = try await withThrowingTaskGroup(of: Tally_.self) { group in
        for worker in 0..<clients {
            group.addTask {
                var generator = SystemRandomNumberGenerator()
                var tally = Tally_()
                var sequence = 0
                while now() < deadline {
                    let (id, key) = ledgers.randomElement(using: &generator)!
                    let choice = Int.random(in: 0..<10, using: &generator)
                    let begun = now()
                    do {
                        let status: Int
                        switch choice {
                        case 0..<4:
                            sequence += 1
                            let cents = Int.random(in: 1...99_999, using: &generator)
                            status = try await client.send(.POST, "/ledgers/\(id)/wealth/main/deposits", key: key,
                                body: #"{"amount":"\#(cents / 100).\#(String(format: "%02d", cents % 100))"}"#, idempotencyKey: "w\(worker)-\(sequence)").0
                        case 4:
                            sequence += 1
                            status = try await client.send(.POST, "/ledgers/\(id)/wealth/main/purchases", key: key,
                                body: #"{"amount":"0.40","merchant":"Cafe"}"#, idempotencyKey: "w\(worker)-\(sequence)").0
                        case 5..<7:
                            status = try await client.send(.GET, "/ledgers/\(id)/balances", key: key).0
                        case 7..<9:
                            status = try await client.send(.GET, "/ledgers/\(id)/wealth/main", key: key).0
                        default:
                            status = try await client.send(.GET, "/ledgers/\(id)/audit?account=Wealth:main:Spend&limit=20", key: key).0
                        }
                        tally.statuses[status, default: 0] += 1
                    } catch {
                        tally.failures += 1
                    }
                    tally.latencies.append(micros(now() - begun))
                }
                return tally
            }
        }
        var total = Tally_()
        for try await tally in group { total.merge(tally) }
        return total
    }
    let elapsed = Double(micros(now() - started)) / 1_000_000
    // 404: a wealth summary or audit of a ledger that has had no deposit yet; 422: a
    // purchase that Spend could not cover. Both are the ledger's answers, not errors.
    total.report("mixed (\(ledgers.count) ledgers, \(clients) clients)", seconds: elapsed, expected: [200, 201, 404, 422])
    try await http.shutdown()
}

func single(_ arguments: Arguments) async throws {
    let clients = arguments.int("clients", 64)
    let seconds = arguments.int("seconds", 10)
    let http = makeHTTPClient(clients)
    let client = Client(http: http, base: "http://127.0.0.1:\(arguments.string("port"))")
    let (id, key) = try await createLedgers(client, admin: arguments.string("admin-key"), count: 1, prefix: "single-")[0]
    let started = now()
    let deadline = started + .seconds(seconds)
    let total = try await withThrowingTaskGroup(of: Tally_.self) { group in
        for worker in 0..<clients {
            group.addTask {
                var tally = Tally_()
                var sequence = 0
                while now() < deadline {
                    sequence += 1
                    let begun = now()
                    do {
                        let status = try await client.send(.POST, "/ledgers/\(id)/wealth/main/deposits", key: key, body: #"{"amount":"1.00"}"#, idempotencyKey: "s\(worker)-\(sequence)").0
                        tally.statuses[status, default: 0] += 1
                    } catch {
                        tally.failures += 1
                    }
                    tally.latencies.append(micros(now() - begun))
                }
                return tally
            }
        }
        var total = Tally_()
        for try await tally in group { total.merge(tally) }
        return total
    }
    total.report("single ledger over HTTP (deposits, \(clients) clients)", seconds: Double(micros(now() - started)) / 1_000_000, expected: [201])
    try await http.shutdown()
}

func library(_ arguments: Arguments) async throws {
    let clients = arguments.int("clients", 64)
    let seconds = arguments.int("seconds", 10)
    let directory = arguments.string("dir")
    let ledger = try Ledger.create(at: directory, name: "library", baseCurrency: .usd, timeZone: "UTC", options: .standard)
    let started = now()
    let deadline = started + .seconds(seconds)
    let total = try await withThrowingTaskGroup(of: Tally_.self) { group in
        for worker in 0..<clients {
            group.addTask {
                var tally = Tally_()
                var sequence = 0
                while now() < deadline {
                    sequence += 1
                    let begun = now()
                    do {
                        let command = try ledger.depositCommand(account: "main", amount: try Money(parsing: "1.00", commodity: .usd), idempotencyKey: "l\(worker)-\(sequence)")
                        _ = try await ledger.run(command)
                        tally.statuses[201, default: 0] += 1
                    } catch {
                        tally.failures += 1
                    }
                    tally.latencies.append(micros(now() - begun))
                }
                return tally
            }
        }
        var total = Tally_()
        for try await tally in group { total.merge(tally) }
        return total
    }
    total.report("single ledger, library async API (deposits, \(clients) tasks)", seconds: Double(micros(now() - started)) / 1_000_000, expected: [201])
    try ledger.close()
}

func verify(_ arguments: Arguments) throws {
    let root = arguments.string("data") + "/ledgers"
    let ids = try FileManager.default.contentsOfDirectory(atPath: root).sorted()
    var mismatched: [String] = []
    var withBalances = 0
    var events: UInt64 = 0
    for id in ids {
        let ledger = try Ledger.openForReading(at: root + "/" + id, options: .standard)
        defer { try? ledger.close() }
        events += ledger.head.sequence
        let folded = try ledger.balances(asOf: nil).filter { !$0.amount.isZero }.map { "\($0.account) \($0.amount)" }
        let replayed = try Replay.fold(at: root + "/" + id, options: .standard) { state in
            try state.balances(asOf: .latest).filter { !$0.amount.isZero }.map { "\($0.account) \($0.amount)" }
        }
        if folded != replayed { mismatched.append(id) }
        if !folded.isEmpty { withBalances += 1 }
    }
    print("verify: \(ids.count) ledgers (\(withBalances) with balances), \(events) events; balances equal a full replay of the log in \(ids.count - mismatched.count) of \(ids.count)\(mismatched.isEmpty ? "" : "; differ: \(mismatched)")")
    if !mismatched.isEmpty { exit(1) }
}

let arguments = Arguments()
switch arguments.mode {
case "mixed": try await mixed(arguments)
case "single": try await single(arguments)
case "library": try await library(arguments)
case "verify": try verify(arguments)
default:
    print("usage: serve-load mixed|single|library|verify --name value …")
    exit(2)
}
