package import GRDB

/// Typed values read from a read model's row through its table's column enum: every query of
/// the read-model layer decodes money, instants, sequence numbers and kinds one way, and a
/// stored value the fold could not have written throws ``LedgerError`` (`inconsistentLog`),
/// naming the column, instead of falling back to a default.
extension Row {
    /// An amount in minor units with its commodity's code, as every read model stores money.
    ///
    /// - Throws: ``LedgerError`` (`inconsistentLog`) when the code names no known commodity.
    package func money(_ amount: Column, _ commodity: Column) throws -> Money {
        let code: String = self[commodity]
        do {
            return Money(minorUnits: self[amount], commodity: try Commodity.named(code))
        } catch {
            throw LedgerError(.inconsistentLog, "the read models hold an amount in '\(code)' (column \(commodity.name)), a commodity this ledger does not know; run `tally rebuild`", underlying: error)
        }
    }

    /// An instant stored as microseconds since the epoch.
    package func instant(_ column: Column) -> Instant {
        Instant(microsecondsSinceEpoch: self[column])
    }

    /// An instant, or nil where the column is NULL.
    package func optionalInstant(_ column: Column) -> Instant? {
        (self[column] as Int64?).map(Instant.init(microsecondsSinceEpoch:))
    }

    /// A sequence number of the log.
    package func sequence(_ column: Column) -> UInt64 {
        UInt64(self[column] as Int64)
    }

    /// A sequence number, or nil where the column is NULL.
    package func optionalSequence(_ column: Column) -> UInt64? {
        (self[column] as Int64?).map(UInt64.init)
    }

    /// A kind stored by its raw value.
    ///
    /// - Throws: ``LedgerError`` (`inconsistentLog`) for a value no case has.
    package func kind<Kind: RawRepresentable>(_ column: Column, as type: Kind.Type = Kind.self) throws -> Kind where Kind.RawValue: DatabaseValueConvertible {
        let raw: Kind.RawValue = self[column]
        guard let kind = Kind(rawValue: raw) else {
            throw LedgerError(.inconsistentLog, "the read models hold '\(raw)' in column \(column.name), which is no \(Kind.self); run `tally rebuild`")
        }
        return kind
    }
}
