import Foundation
import Testing
@testable import TallyService

/// `Schemas/openapi.yaml` and the routes the server registers, held to each other in both
/// directions: every served route is in the document with its operation id and security
/// requirement, and every operation in the document is served.
@Suite struct OpenAPIDocumentTests {
    struct Operation: Hashable, CustomStringConvertible {
        let method: String
        let path: String
        let operationId: String
        let security: String

        var description: String { "\(method.uppercased()) \(path) (\(operationId), security \(security))" }
    }

    static func documentText() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("Schemas/openapi.yaml"), encoding: .utf8)
    }

    /// The operations under `paths:`, read line by line in the document's own layout (a path
    /// at two spaces, a method at four, its fields at six).
    static func documentOperations() throws -> [Operation] {
        var operations: [Operation] = []
        var inPaths = false
        var path: String?
        var method: String?
        var operationId: String?
        var security: String?
        func flush() {
            if let path, let method {
                operations.append(Operation(method: method, path: path, operationId: operationId ?? "?", security: security ?? "missing"))
            }
            method = nil
            operationId = nil
            security = nil
        }
        for line in try documentText().split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            // An empty line is inside a block scalar (an event stream's example), never the end of `paths:`.
            if line.isEmpty { continue }
            if !line.hasPrefix(" ") {
                if inPaths { flush() }
                inPaths = line == "paths:"
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                flush()
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), ["get:", "post:", "put:", "delete:", "patch:"].contains(line.trimmingCharacters(in: .whitespaces)) {
                flush()
                method = String(line.trimmingCharacters(in: .whitespaces).dropLast())
            } else if line.hasPrefix("      operationId: ") {
                operationId = String(line.dropFirst("      operationId: ".count))
            } else if line.hasPrefix("      security: ") {
                security = String(line.dropFirst("      security: ".count))
            }
        }
        flush()
        return operations
    }

    static func security(_ route: ServiceRoute) -> String {
        switch route.security {
        case .none: "[]"
        case .serverAdmin: "[{adminKey: []}]"
        case .ledger(let scope): "[{ledgerKey: [\(scope.rawValue)]}, {adminKey: []}]"
        }
    }

    static func servedOperations() -> [Operation] {
        TallyServer.routes.map { Operation(method: $0.method.rawValue.lowercased(), path: $0.path, operationId: $0.operationId, security: security($0)) }
    }

    @Test func everyServedRouteIsInTheDocument() throws {
        let documented = Set(try Self.documentOperations())
        let missing = Self.servedOperations().filter { !documented.contains($0) }
        #expect(missing.isEmpty, "served but not in Schemas/openapi.yaml (or with another operationId or security): \(missing)")
    }

    @Test func everyDocumentedOperationIsServed() throws {
        let served = Set(Self.servedOperations())
        let unserved = try Self.documentOperations().filter { !served.contains($0) }
        #expect(unserved.isEmpty, "in Schemas/openapi.yaml but not served as written: \(unserved)")
    }

    @Test func theDocumentIsReadAsAWhole() throws {
        // A reader that found nothing would make both directions pass vacuously.
        let operations = try Self.documentOperations()
        #expect(operations.count == TallyServer.routes.count)
        #expect(Set(operations.map(\.operationId)).count == operations.count, "operation ids are unique")
        #expect(operations.allSatisfy { $0.security != "missing" }, "every operation declares its security requirement")
    }

    /// Two paths of as many segments that differ only where one has a literal and the other a
    /// parameter (`recurring/status` beside `recurring/{recurring}`): which one a request means
    /// is the router's choice, and a generator cannot tell them apart.
    static func clashes(_ paths: [String]) -> [String] {
        func shadows(_ first: [Substring], _ second: [Substring]) -> Bool {
            guard first.count == second.count else { return false }
            var literalAgainstParameter = false
            for (one, other) in zip(first, second) where one != other {
                let oneIsParameter = one.hasPrefix("{"), otherIsParameter = other.hasPrefix("{")
                if oneIsParameter && otherIsParameter { continue }
                guard oneIsParameter != otherIsParameter else { return false }
                literalAgainstParameter = true
            }
            return literalAgainstParameter
        }
        let distinct = Array(Set(paths)).sorted()
        let segments = distinct.map { $0.split(separator: "/") }
        var found: [String] = []
        for first in distinct.indices {
            for second in distinct.indices where second > first && shadows(segments[first], segments[second]) {
                found.append("\(distinct[first]) and \(distinct[second])")
            }
        }
        return found
    }

    @Test func noPathShadowsAnother() throws {
        #expect(Self.clashes(["/a/{id}", "/a/status", "/a/{id}/b", "/c/{x}/d", "/c/{y}/e"]) == ["/a/status and /a/{id}"])
        let clashes = Self.clashes(try Self.documentOperations().map(\.path))
        #expect(clashes.isEmpty, "paths a literal segment makes ambiguous: \(clashes)")
    }
}
