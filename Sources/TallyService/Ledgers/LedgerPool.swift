import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import Tally
import TallyLog

/// A request for a ledger that another service node holds: it is answered there
/// (``ServiceState`` answers with a redirect to the node's address).
struct LedgerHeldElsewhere: Error {
    let ledger: String
    let node: String
    let address: String?
}

/// The deployment a node is one of, when ledgers' logs live in a shared PostgreSQL database.
struct ServiceCluster: Sendable {
    /// The server's URL, without a ledger.
    let server: String
    /// This node's name: its lease owner name and its row in `tally_nodes`.
    let node: String
    /// Where this node answers, for other nodes' redirects.
    let address: String
    let nodes: PostgresNodes

    /// A ledger's location on the server.
    func location(of id: String) throws -> PostgresLogLocation {
        try PostgresLogLocation(server: server, ledger: id)
    }
}

/// The ledgers of a data directory, one store each under `ledgers/<id>`, opened on first use
/// and closed when idle: at most ``Limits/openLedgersLimit`` stay open (the least recently
/// used idle one is closed to make room), and one unused for ``Limits/idleSeconds`` is
/// closed by the sweep. A request holds a lease on its ledger while it runs, so a ledger is
/// never closed under a command or a live event stream.
///
/// As a `Service` it runs the idle sweep and, on graceful shutdown (after the HTTP server has
/// finished its in-flight requests), refuses new leases, waits for the leases still held
/// and closes every ledger.
actor LedgerPool: Service {
    struct Limits: Sendable {
        var openLedgersLimit: Int
        var idleSeconds: Int
    }

    private final class Entry {
        let ledger: Ledger
        var leases = 0
        var lastUsed: ContinuousClock.Instant

        init(ledger: Ledger) {
            self.ledger = ledger
            lastUsed = .now
        }
    }

    let directory: String
    private let limits: Limits
    private let options: Ledger.Options
    private let threads: NIOThreadPool
    private let logger: Logger
    /// The shared database and this node's place in it, for ledgers on PostgreSQL.
    nonisolated let cluster: ServiceCluster?
    private var open: [String: Entry] = [:]
    private var opening: [String: Task<Ledger, any Error>] = [:]
    private var isClosing = false
    /// Ledgers closed for an erasure or a deletion: no request opens them meanwhile.
    private var maintenance: Set<String> = []
    private var leaseWaiters: [CheckedContinuation<Void, Never>] = []

    init(directory: String, limits: Limits, options: Ledger.Options, threads: NIOThreadPool, logger: Logger, cluster: ServiceCluster? = nil) {
        self.cluster = cluster
        self.directory = directory
        self.limits = limits
        self.options = options
        self.threads = threads
        self.logger = logger
    }

    /// The store directory of a ledger id.
    nonisolated func path(of id: String) -> String { directory + "/ledgers/" + id }

    /// A ledger id: 1 to 64 lower-case letters, digits and dashes, starting with a letter or
    /// digit (it names a directory).
    static func validate(id: String) throws {
        let bytes = Array(id.utf8)
        let allowed = bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
        guard (1...64).contains(bytes.count), allowed, bytes[0] != 0x2D else {
            throw Problem(.unprocessableContent, "invalid_ledger_id", "a ledger id is 1 to 64 lower-case letters, digits and dashes, not starting with a dash", field: "id")
        }
    }

    /// Creates a ledger's store and keeps it open.
    func create(id: String, name: String, baseCurrency: Commodity, timeZone: String) async throws -> Ledger {
        try Self.validate(id: id)
        try requireOpenForBusiness()
        let path = path(of: id)
        if open[id] != nil || opening[id] != nil || FileManager.default.fileExists(atPath: path) {
            throw Problem(.conflict, "ledger_exists", "a ledger '\(id)' exists already", field: "id")
        }
        var options = self.options
        if let cluster {
            let location = try cluster.location(of: id)
            if try cluster.nodes.exists(location) {
                throw Problem(.conflict, "ledger_exists", "a ledger '\(id)' exists already", field: "id")
            }
            options.postgres = location
        }
        let directory = self.directory
        let creationOptions = options
        let ledger = try await threads.runIfActive {
            try FileManager.default.createDirectory(atPath: directory + "/ledgers", withIntermediateDirectories: true)
            return try Ledger.create(at: path, name: name, baseCurrency: baseCurrency, timeZone: timeZone, options: creationOptions)
        }
        open[id] = Entry(ledger: ledger)
        logger.info("ledger created", metadata: ["ledger": "\(id)"])
        await makeRoom()
        return ledger
    }

    /// Restores ledger `id` from an export at `path` (`Ledger.restore`: checked whole first,
    /// built beside its place and moved there complete, so a refused restore leaves nothing);
    /// it opens on first use. A deployment of several nodes restores with `tally restore`
    /// into its database (this node's restore writes a store on its own disk).
    func restore(id: String, from export: String) async throws -> RestoreSummary {
        try Self.validate(id: id)
        try requireOpenForBusiness()
        guard cluster == nil else {
            throw Problem(.notImplemented, "restore_unsupported", "a node of a shared deployment does not restore over HTTP; run `tally restore FILE --store postgresql://…?ledger=NAME` against the database")
        }
        let path = path(of: id)
        if open[id] != nil || opening[id] != nil || FileManager.default.fileExists(atPath: path) {
            throw Problem(.conflict, "ledger_exists", "a ledger '\(id)' exists already; a restore makes a new ledger")
        }
        let directory = self.directory
        let options = self.options
        let summary = try await threads.runIfActive {
            try FileManager.default.createDirectory(atPath: directory + "/ledgers", withIntermediateDirectories: true)
            return try Ledger.restore(from: export, into: path, options: options)
        }
        logger.info("ledger restored", metadata: ["ledger": "\(id)", "events": "\(summary.events)"])
        return summary
    }

    /// Takes a lease on ledger `id`, opening it when it is closed; ``release(_:)`` gives it back.
    func lease(_ id: String) async throws -> Ledger {
        try requireOpenForBusiness()
        if maintenance.contains(id) {
            var problem = Problem(.serviceUnavailable, "ledger_busy", "ledger '\(id)' is closed for an erasure or a deletion; retry in a moment")
            problem.headers[.retryAfter] = "1"
            throw problem
        }
        if let entry = open[id] {
            entry.leases += 1
            entry.lastUsed = .now
            return entry.ledger
        }
        let task: Task<Ledger, any Error>
        if let pending = opening[id] {
            task = pending
        } else {
            try Self.validate(id: id)
            let path = path(of: id)
            let options = self.options
            let threads = self.threads
            if let cluster {
                // Every ledger of the database is this node's to serve: its directory is made on first use.
                let location = try cluster.location(of: id)
                task = Task {
                    try await threads.runIfActive {
                        guard try cluster.nodes.exists(location) else {
                            throw Problem(.notFound, "ledger_not_found", "there is no ledger '\(id)'")
                        }
                        try FileManager.default.createDirectory(atPath: self.directory + "/ledgers", withIntermediateDirectories: true)
                        try PostgresStore.attach(location, at: path)
                        do {
                            return try Ledger.open(at: path, options: options)
                        } catch let error as LedgerError where error.code == .locked {
                            // Another node holds the ledger's lease: the request is answered there.
                            guard let holder = try cluster.nodes.holder(of: location), holder.node != cluster.node else { throw error }
                            throw LedgerHeldElsewhere(ledger: id, node: holder.node, address: holder.address)
                        }
                    }
                }
            } else {
                guard FileManager.default.fileExists(atPath: path) else {
                    throw Problem(.notFound, "ledger_not_found", "there is no ledger '\(id)'")
                }
                task = Task { try await threads.runIfActive { try Ledger.open(at: path, options: options) } }
            }
            opening[id] = task
        }
        let ledger: Ledger
        do {
            ledger = try await task.value
        } catch {
            opening[id] = nil
            throw error
        }
        opening[id] = nil
        let entry = open[id] ?? {
            let entry = Entry(ledger: ledger)
            open[id] = entry
            logger.debug("ledger opened", metadata: ["ledger": "\(id)"])
            return entry
        }()
        entry.leases += 1
        entry.lastUsed = .now
        await makeRoom()
        return entry.ledger
    }

    /// The ledgers of this node's data directory, by id (each a store under `ledgers/`), with
    /// whether each is open now.
    func list() throws -> [(id: String, isOpen: Bool)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/ledgers")) ?? []
        let ids = Set(names.filter { (try? Self.validate(id: $0)) != nil && StoreLayout(root: path(of: $0)).exists }).union(open.keys)
        return ids.sorted().map { ($0, open[$0] != nil) }
    }

    /// Runs `body` on ledger `id`'s store (its path) while the ledger is closed and no request
    /// can open it (such a request is 503 `ledger_busy`): for what the library does to a
    /// closed store (a subject's erasure, the store's deletion). Refused with 409
    /// `ledger_in_use` while a request holds the ledger (a live event stream does while it
    /// is open), 404 for no such ledger; on a node of a shared deployment, 501.
    func withClosed<T: Sendable>(_ id: String, why: String, _ body: @escaping @Sendable (_ path: String) throws -> T) async throws -> T {
        try Self.validate(id: id)
        try requireOpenForBusiness()
        guard cluster == nil else {
            throw Problem(.notImplemented, "unsupported_on_shared_node", "a node of a shared deployment does not \(why) over HTTP; run the `tally` command against the database")
        }
        let path = path(of: id)
        guard !maintenance.contains(id), opening[id] == nil else {
            var problem = Problem(.serviceUnavailable, "ledger_busy", "ledger '\(id)' is being opened or changed; retry in a moment")
            problem.headers[.retryAfter] = "1"
            throw problem
        }
        guard open[id] != nil || FileManager.default.fileExists(atPath: path) else {
            throw Problem(.notFound, "ledger_not_found", "there is no ledger '\(id)'")
        }
        if let entry = open[id], entry.leases > 0 {
            throw Problem(.conflict, "ledger_in_use", "ledger '\(id)' is in use by \(entry.leases) request(s) (a live event stream holds it while it is open); retry when they end")
        }
        maintenance.insert(id)
        defer { maintenance.remove(id) }
        if let entry = open.removeValue(forKey: id) { await close(id, entry.ledger, why: why) }
        logger.info("ledger closed to \(why)", metadata: ["ledger": "\(id)"])
        return try await threads.runIfActive { try body(path) }
    }

    /// Gives back a lease taken with ``lease(_:)``.
    func release(_ id: String) {
        guard let entry = open[id] else { return }
        entry.leases -= 1
        entry.lastUsed = .now
        if entry.leases == 0 && isClosing { wakeLeaseWaiters() }
    }

    /// Runs `body` with a lease on ledger `id`.
    nonisolated func with<T: Sendable>(_ id: String, _ body: (Ledger) async throws -> T) async throws -> T {
        let ledger = try await lease(id)
        do {
            let result = try await body(ledger)
            await release(id)
            return result
        } catch {
            await release(id)
            if Self.isFenced(error) { await forget(id, why: "another node took it over") }
            throw error
        }
    }

    /// Whether `error` says this node's writer of a ledger on PostgreSQL was fenced: another
    /// node holds the ledger under a newer epoch.
    static func isFenced(_ error: any Error) -> Bool {
        guard let error = error as? LedgerError, let log = error.underlying as? LogError else { return false }
        return log.code == .headMoved
    }

    /// Closes ledger `id` once its leases are given back, so that the next request opens it
    /// again (for a fenced ledger: finds its new holder).
    func forget(_ id: String, why: String) async {
        guard let entry = open[id], entry.leases == 0 else { return }
        open[id] = nil
        await close(id, entry.ledger, why: why)
    }

    /// The open ledgers and whether each one's read models have folded its whole log.
    func health() async -> [(id: String, head: UInt64, checkpoint: UInt64?)] {
        let ledgers = open.map { ($0.key, $0.value.ledger) }.sorted { $0.0 < $1.0 }
        var rows: [(id: String, head: UInt64, checkpoint: UInt64?)] = []
        for (id, ledger) in ledgers {
            let checkpoint = try? await threads.runIfActive { try ledger.readModels.checkpoint() }
            rows.append((id, ledger.head.sequence, checkpoint))
        }
        return rows
    }

    /// How many ledgers are open now.
    var openCount: Int { open.count }

    /// Whether ledger `id` is open now (tests watch idle closing with it).
    func isOpen(_ id: String) -> Bool { open[id] != nil }

    /// The leases held on ledger `id` now (tests watch streams give theirs back).
    func leaseCount(_ id: String) -> Int { open[id]?.leases ?? 0 }

    private func requireOpenForBusiness() throws {
        if isClosing {
            throw Problem(.serviceUnavailable, "shutting_down", "the server is shutting down; retry on another instance or after it restarts")
        }
    }

    /// Closes the least recently used idle ledgers while more than the limit are open.
    private func makeRoom() async {
        while open.count > limits.openLedgersLimit {
            guard let (id, entry) = open.filter({ $0.value.leases == 0 }).min(by: { $0.value.lastUsed < $1.value.lastUsed }) else { return }
            open[id] = nil
            await close(id, entry.ledger, why: "over the open-ledger limit")
        }
    }

    /// Closes ledgers unused for longer than the idle limit.
    func sweep() async {
        let cutoff = ContinuousClock.now - .seconds(limits.idleSeconds)
        for (id, entry) in open where entry.leases == 0 && entry.lastUsed < cutoff {
            open[id] = nil
            await close(id, entry.ledger, why: "idle")
        }
    }

    private func close(_ id: String, _ ledger: Ledger, why: String) async {
        do {
            try await threads.runIfActive { try ledger.close() }
            logger.debug("ledger closed", metadata: ["ledger": "\(id)", "reason": "\(why)"])
        } catch {
            logger.error("ledger close failed", metadata: ["ledger": "\(id)", "error": "\(error)"])
        }
    }

    private func wakeLeaseWaiters() {
        guard open.values.allSatisfy({ $0.leases == 0 }) else { return }
        for waiter in leaseWaiters { waiter.resume() }
        leaseWaiters.removeAll()
    }

    /// Refuses new leases, waits until no lease is held, closes every ledger.
    func closeAll() async {
        isClosing = true
        if open.values.contains(where: { $0.leases > 0 }) {
            await withCheckedContinuation { leaseWaiters.append($0) }
        }
        for (id, entry) in open.sorted(by: { $0.key < $1.key }) {
            await close(id, entry.ledger, why: "shutdown")
        }
        open.removeAll()
        logger.info("every ledger closed")
    }

    /// Sweeps idle ledgers until graceful shutdown, then closes everything.
    func run() async throws {
        let sweepSeconds = max(1, min(limits.idleSeconds, 30))
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(sweepSeconds))
                await self.sweep()
            }
        }
        await closeAll()
    }
}
