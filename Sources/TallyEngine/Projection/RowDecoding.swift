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
        try Self.storedMoney(self[amount], code: self[commodity], column: commodity.name)
    }

    /// An amount as a read model stores it (minor units and the code in `column`), for
    /// values summed outside SQL.
    package static func storedMoney(_ minorUnits: Int64, code: String, column: String) throws -> Money {
        do {
            return Money(minorUnits: minorUnits, commodity: try Commodity.named(code))
        } catch {
            throw LedgerError(.inconsistentLog, "the read models hold an amount in '\(code)' (column \(column)), a commodity this ledger does not know; run `tally rebuild`", underlying: error)
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
        try Self.storedKind(self[column], column: column.name)
    }

    /// A kind from its stored raw value in `column`.
    package static func storedKind<Kind: RawRepresentable>(_ raw: Kind.RawValue, column: String, as type: Kind.Type = Kind.self) throws -> Kind {
        guard let kind = Kind(rawValue: raw) else {
            throw LedgerError(.inconsistentLog, "the read models hold '\(raw)' in column \(column), which is no \(Kind.self); run `tally rebuild`")
        }
        return kind
    }
}
