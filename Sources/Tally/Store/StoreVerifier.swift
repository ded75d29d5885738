public import TallyLog

/// The outcome of checking a whole store: the log's checksums, hash chain and sequence,
/// and that every payload decodes with this build's catalog.
public struct StoreVerification: Sendable {
    /// What the log check found (head digest, counts, problems).
    public let log: LogVerification
    /// Payloads that did not decode, as messages naming the sequence number.
    public let undecodableEvents: [String]

    /// True when nothing is wrong.
    public var isIntact: Bool { log.isValid && undecodableEvents.isEmpty }
}

/// Checks a store end to end: `tally verify`.
public enum StoreVerifier {
    /// Verifies the log, then decodes every event.
    ///
    /// - Parameters:
    ///   - expect: a digest kept elsewhere (`seq:hash`); the recomputed hash at that
    ///     sequence number must match.
    ///   - progress: called with the last sequence number checked.
    /// - Throws: ``StoreError`` when there is no store at `root`.
    public static func verify(at root: String, expect: LogDigest? = nil, progress: ((UInt64) -> Void)? = nil) throws -> StoreVerification {
        let layout = StoreLayout(root: root)
        try layout.requireStore()
        let log = try verifyLog(directory: layout.logDirectory, expect: expect, progress: progress)
        var undecodable: [String] = []
        if log.problems.isEmpty {
            let reader = try LogReader.open(directory: layout.logDirectory)
            try reader.forEach { logged in
                do {
                    _ = try EventCatalog.decode(logged)
                } catch {
                    if undecodable.count < 100 { undecodable.append("\(error)") }
                }
            }
        }
        return StoreVerification(log: log, undecodableEvents: undecodable)
    }
}
