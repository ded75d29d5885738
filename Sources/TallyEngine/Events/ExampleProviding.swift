/// A type with a documented example value: a realistic instance with every optional field
/// set, published with the type's JSON Schema (`examples` in `Schemas/events/`, and so in the
/// typed events of `Schemas/openapi.yaml`).
///
/// Each of Tally's event types, and each older version still read, gives one right after its
/// declaration; the schemas are generated from the catalog's types and their examples, and the
/// codec, upcasting and schema tests take the examples as their samples. An embedder's type
/// may give one the same way.
///
/// ```swift
/// extension MerchantTagged: ExampleProviding {
///     public static var example: MerchantTagged {
///         MerchantTagged(account: "Assets:Card", merchant: "Blue Bottle Coffee, Oakland")
///     }
/// }
/// ```
public protocol ExampleProviding {
    /// A realistic value with every optional set, no two fields of one type equal (so that
    /// a swapped field order shows in the examples).
    ///
    /// - Throws: only for a literal that does not parse (an amount with too many decimals,
    ///   a date that does not exist): the schema check then names it.
    static var example: Self { get throws }
}

extension PlainTextVersion: ExampleProviding where Payload: ExampleProviding {
    /// The current version's example, as it was written before personal text was sealed.
    public static var example: PlainTextVersion<Payload> {
        get throws { PlainTextVersion(try Payload.example) }
    }
}
