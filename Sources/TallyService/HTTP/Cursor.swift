import Foundation

/// An opaque page cursor that carries the list it belongs to, that list's filters and the
/// position after the last row served: the next page needs only `cursor=…`. A request that
/// gives a cursor and also a filter that differs from the one the cursor carries is refused,
/// as is a cursor for another list, a damaged one, or one from another ledger.
struct Cursor: Codable, Equatable, Sendable {
    /// The list (`audit`, `log`).
    let list: String
    /// The ledger it pages.
    let ledger: String
    /// The filters, by query parameter name.
    let filters: [String: String]
    /// Where the next page starts: rows after this position.
    let position: UInt64
    /// For a list keyed by more than a number (the audit's ``AuditPosition``): the key the
    /// next page starts after.
    var after: String? = nil

    /// The cursor as a URL-safe token.
    var token: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(self)) ?? Data()  // a struct of strings and an integer always encodes
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Reads a token given as the `cursor` parameter for `list` of `ledger`.
    init(token: String, list: String, ledger: String) throws {
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        guard token.utf8.count <= 4096, let data = Data(base64Encoded: base64), let cursor = try? JSONDecoder().decode(Cursor.self, from: data) else {
            throw Problem.invalidParameter("cursor", "the cursor is not one this server gave; start again without it")
        }
        guard cursor.list == list, cursor.ledger == ledger else {
            throw Problem.invalidParameter("cursor", "the cursor belongs to another list or ledger; start again without it")
        }
        self = cursor
    }

    init(list: String, ledger: String, filters: [String: String], position: UInt64, after: String? = nil) {
        self.list = list
        self.ledger = ledger
        self.filters = filters
        self.position = position
        self.after = after
    }

    /// The filters to use: the cursor's, refusing a parameter given beside it that differs.
    static func filters(_ names: [String], call: Call, cursor: Cursor?) throws -> [String: String] {
        var filters: [String: String] = [:]
        for name in names {
            let given = call.query(name)
            if let cursor {
                if let given, given != cursor.filters[name] {
                    throw Problem.invalidParameter(name, "'\(name)' differs from the one the cursor carries; a cursor keeps its filters (drop '\(name)' or start again without the cursor)")
                }
                filters[name] = cursor.filters[name]
            } else if let given {
                filters[name] = given
            }
        }
        return filters
    }

    /// The `limit` parameter: 1 to `maximum`, default `fallback`.
    static func limit(_ call: Call, fallback: Int = 100, maximum: Int = 1000) throws -> Int {
        try integer(call, "limit", in: 1...maximum, fallback: fallback)
    }

    /// An integer query parameter in `range`, default `fallback`.
    static func integer(_ call: Call, _ name: String, in range: ClosedRange<Int>, fallback: Int) throws -> Int {
        try integer(call, name, in: range) ?? fallback
    }

    /// The integer query parameter `name` within `range`; nil when absent.
    static func integer(_ call: Call, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = call.query(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw Problem.invalidParameter(name, "'\(name)' is '\(text)'; give \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
