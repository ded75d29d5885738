import Testing
import TallyEngine

/// Every `LedgerError.Code` has a stable snake_case name, the string the HTTP service's
/// problem documents carry as their `code`.
@Suite struct LedgerErrorCodeNameTests {
    @Test func everyCodeHasItsStableSnakeCaseName() {
        let expected: [(LedgerError.Code, String)] = [
            (.insufficientFunds, "insufficient_funds"), (.notFound, "not_found"), (.alreadyExists, "already_exists"),
            (.invalidArgument, "invalid_argument"), (.notAllowed, "not_allowed"), (.cardFrozen, "card_frozen"),
            (.currencyMismatch, "currency_mismatch"), (.idempotencyConflict, "idempotency_conflict"),
            (.inconsistentLog, "inconsistent_log"), (.overflow, "overflow"), (.invalidEvent, "invalid_event"),
            (.invalidInput, "invalid_input"), (.locked, "locked"), (.store, "store"), (.readModels, "read_models"),
        ]
        for (code, name) in expected { #expect(code.name == name, "\(code)") }
        #expect(LedgerError.Code.all.map(\.name) == expected.map(\.1))
    }

    @Test func namesAreDistinctSnakeCase() {
        let names = LedgerError.Code.all.map(\.name)
        #expect(Set(names).count == names.count)
        for name in names {
            #expect(name.allSatisfy { ("a"..."z").contains($0) || $0 == "_" } && !name.hasPrefix("_") && !name.hasSuffix("_"), "\(name)")
        }
    }

    /// A lower layer's error reported at the boundary carries a named code too.
    @Test func anAmountThatDoesNotParseReachesAnEmbedderAsALedgerErrorWithACode() {
        let error = #expect(throws: LedgerError.self) { try Money(parsing: "12.345", commodity: .usd) }
        #expect(error?.code.name == "invalid_argument")
        #expect((error?.underlying as? MoneyError)?.code == .tooManyDecimals)
        let overflow = #expect(throws: LedgerError.self) { try Money(parsing: "99999999999999999999", commodity: .usd) }
        #expect(overflow?.code.name == "overflow")
    }
}
