import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// The answers the service gave to commands it refused (4xx), by ledger and idempotency key,
/// kept on disk: a key answered once answers the same forever. A command that committed is
/// the engine's to repeat (its idempotency keys are in the log); one that was refused left
/// nothing in the log, so without this a retry after the refusal could succeed (a deposit
/// refused for a frozen card, retried after the card was unfrozen, would move money the
/// client was told had not moved). A 5xx is never kept: the request may be retried.
///
/// Each ledger's refusals are one append-only file, `DIR/idempotency/<ledger>.jsonl`, a
/// JSON object a line (`key`, `fingerprint`, `status`, `body`), written and synced before
/// the refusal is answered, read once when the ledger's first keyed command arrives.
/// The `fingerprint` is a SHA-256 of the operation, the path and the body: the same key with
/// another request is 409 `idempotency_conflict`, as the engine answers for a committed key.
///
/// In a deployment of several nodes each node keeps its own file: a refusal is replayed by
/// the node that gave it (the ledger's holder) and, after a takeover, decided again.
final class RefusedCommands: Sendable {
    /// One refusal as it was answered.
    struct Answer: Sendable, Codable {
        let key: String
        let fingerprint: String
        let status: Int
        let body: String

        var response: Response {
            var headers = HTTPFields()
            headers[.contentType] = "application/problem+json"
            headers[CommandRoutes.replayedField] = "true"
            return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
    }

    private let directory: String
    /// Per ledger, its refusals by key, once read from its file.
    private let loaded = Mutex<[String: [String: Answer]]>([:])

    init(directory: String) {
        self.directory = directory + "/idempotency"
    }

    /// The fingerprint of a request: its operation, path and body.
    static func fingerprint(operation: String, path: String, body: [UInt8]) -> String {
        var hash = SHA256()
        hash.update(data: Array(operation.utf8) + [0x0A] + Array(path.utf8) + [0x0A])
        hash.update(data: body)
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The refusal answered for `key` on `ledger`, if one was.
    func answer(ledger: String, key: String) throws -> Answer? {
        try answers(of: ledger)[key]
    }

    /// Keeps a refusal (durably, before it is answered); a key already kept keeps its first answer.
    func record(ledger: String, _ answer: Answer) throws {
        _ = try answers(of: ledger)
        try loaded.withLock { loaded in
            guard loaded[ledger]?[answer.key] == nil else { return }
            var line = try JSONEncoder().encode(answer)
            line.append(0x0A)
            let path = file(of: ledger)
            if !FileManager.default.fileExists(atPath: path) {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                    throw ServiceError("cannot create \(path)")
                }
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: line)
            try handle.synchronize()
            loaded[ledger, default: [:]][answer.key] = answer
        }
    }

    /// Forgets every refusal of `ledger` (its deletion: a new ledger of the same id starts afresh).
    func forget(ledger: String) throws {
        try loaded.withLock { loaded in
            let path = file(of: ledger)
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            loaded[ledger] = nil
        }
    }

    private func file(of ledger: String) -> String { directory + "/" + ledger + ".jsonl" }

    private func answers(of ledger: String) throws -> [String: Answer] {
        if let answers = loaded.withLock({ $0[ledger] }) { return answers }
        var answers: [String: Answer] = [:]
        if let data = FileManager.default.contents(atPath: file(of: ledger)) {
            let decoder = JSONDecoder()
            for line in data.split(separator: 0x0A) {
                // A line cut short by a crash was never answered: it is not a refusal.
                guard let answer = try? decoder.decode(Answer.self, from: Data(line)) else { continue }
                if answers[answer.key] == nil { answers[answer.key] = answer }
            }
        }
        return loaded.withLock { loaded in
            if let present = loaded[ledger] { return present }
            loaded[ledger] = answers
            return answers
        }
    }
}
