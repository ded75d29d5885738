public import TallyEngine
import Foundation

// The rules every product applies to what a user types, each in one place (issue 32,
// rule 8; docs/domain.md, "Across the products"): a name, a ticker. Commands call them
// before anything is planned, so a refused input records nothing.

/// The one rule for the name a user gives a thing (an asset, a liability, a pot, an envelope,
/// a challenge, a bank): trimmed of surrounding spaces and line breaks; required (empty or
/// blank is refused); longer than ``characterLimit`` characters, cut to that many, with a
/// note saying so.
///
/// ```swift
/// try NameRule.checked("  Holiday fund ", "the pot name").name   // "Holiday fund"
/// try NameRule.checked("   ", "the asset name")                  // throws: required
/// ```
public enum NameRule {
    /// The most characters (grapheme clusters, as the apps count them) a name keeps.
    public static let characterLimit = 50

    /// A name after the rule: what is kept, and a note when it was cut.
    public struct Checked: Hashable, Sendable {
        /// The name to record: trimmed, at most ``NameRule/characterLimit`` characters.
        public let name: String
        /// Set when the name was cut: what was typed, how long it was, and what is kept.
        public let note: String?
    }

    /// Applies the rule to `text`.
    ///
    /// - Parameters:
    ///   - text: the name as typed.
    ///   - what: what it names, for the messages (`"the asset name"`).
    /// - Returns: the name to record, and a note when it was longer than the limit.
    /// - Throws: ``LedgerError`` (`invalidArgument`) for an empty or blank name.
    public static func checked(_ text: String, _ what: String) throws -> Checked {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw LedgerError(.invalidArgument, "\(what) is required: '\(text)' is empty or blank; give a name")
        }
        guard trimmed.count > characterLimit else { return Checked(name: trimmed, note: nil) }
        let kept = String(trimmed.prefix(characterLimit)).trimmingCharacters(in: .whitespacesAndNewlines)
        return Checked(name: kept, note: "\(what) has \(trimmed.count) characters, more than \(characterLimit); it is kept as '\(kept)'")
    }

    /// The name to record for `text` (``checked(_:_:)`` without its note).
    ///
    /// - Throws: ``LedgerError`` (`invalidArgument`) for an empty or blank name.
    public static func name(_ text: String, _ what: String) throws -> String {
        try checked(text, what).name
    }
}

/// The one rule for a ticker symbol typed by a user (an asset's symbol tag, a position's
/// symbol, a priced symbol): trimmed and upper-cased, then a well-formed commodity code
/// (`Commodity.named`): `" vea "` is `VEA`.
///
/// ```swift
/// try TickerRule.symbol(" vwrl ")   // VWRL, scale 8
/// ```
public enum TickerRule {
    /// `text` trimmed and upper-cased, refused when it is then no commodity code.
    ///
    /// - Parameters:
    ///   - text: the ticker as typed.
    ///   - what: what it is, for the message (`"the symbol"`).
    /// - Throws: ``LedgerError`` (`invalidArgument`) for an empty or malformed ticker.
    public static func normalised(_ text: String, _ what: String = "the symbol") throws -> String {
        try symbol(text, what).code
    }

    /// The commodity a typed ticker names: ``normalised(_:_:)`` at its standard scale.
    ///
    /// - Throws: ``LedgerError`` (`invalidArgument`) for an empty or malformed ticker.
    public static func symbol(_ text: String, _ what: String = "the symbol") throws -> Commodity {
        let code = text.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        do {
            return try Commodity.named(code)
        } catch {
            throw LedgerError(.invalidArgument, "\(what) '\(text)' is not a ticker: \(error)")
        }
    }
}
