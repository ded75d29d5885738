/// A unit that amounts are counted in: a currency ("USD"), a stablecoin
/// ("USDC"), a crypto asset ("BTC"), a fund or share ("VEA") or any other
/// holding, with the number of decimal places its amounts carry.
///
/// ```swift
/// let usd = Commodity.usd                        // USD, scale 2
/// let yen = try Commodity.named("JPY")           // JPY, scale 0
/// let fund = try Commodity.named("VEA")          // VEA, scale 8 (a ticker)
/// let points = try Commodity(code: "PTS", scale: 0)
/// ```
///
/// Two commodities are equal when both code and scale are equal. Amounts of
/// different commodities never mix without an explicit conversion.
public struct Commodity: Hashable, Sendable, CustomStringConvertible {
    /// The longest code, in characters.
    static let codeLengthLimit = 16
    /// The largest scale: 10^18 is the largest power of ten below 2^63.
    static let scaleMax = 18
    /// The scale of commodities that are neither ISO currencies nor known
    /// crypto assets (shares, funds, metals, unknown tokens).
    static let defaultScale = 8

    /// The code: 1–16 characters, an uppercase ASCII letter first, then
    /// uppercase letters, digits, `.`, `_` or `-`. E.g. `"USD"`, `"BRK.B"`.
    public let code: String
    /// How many digits follow the decimal point in amounts of this
    /// commodity, `0...18`: 2 for USD, 0 for JPY, 3 for BHD, 8 for shares.
    public let scale: Int

    /// A commodity with an explicit scale.
    ///
    /// Prefer ``named(_:)`` for currencies, so the ISO 4217 scale is used.
    ///
    /// ```swift
    /// let points = try Commodity(code: "MILES", scale: 0)
    /// ```
    ///
    /// - Parameters:
    ///   - code: 1–16 characters, `[A-Z][A-Z0-9._-]*`.
    ///   - scale: digits after the decimal point, `0...18`.
    /// - Throws: ``MoneyError/Code/invalidCommodity`` for a bad code,
    ///   ``MoneyError/Code/invalidScale`` for a scale outside `0...18`.
    public init(code: String, scale: Int) throws {
        try Self.validate(code: code)
        guard (0...Self.scaleMax).contains(scale) else {
            throw MoneyError(
                .invalidScale,
                "the scale of commodity \(code) must be between 0 and \(Self.scaleMax) decimal places, got \(scale)"
            )
        }
        self.code = code
        self.scale = scale
    }

    /// For the static constants and table lookups, whose inputs are known good.
    init(uncheckedCode code: String, scale: Int) {
        assert((0...Self.scaleMax).contains(scale))
        self.code = code
        self.scale = scale
    }

    /// The commodity for a code with its standard scale.
    ///
    /// - ISO 4217 currencies get their official minor-unit exponent:
    ///   USD 2, JPY 0, KRW 0, BHD 3, KWD 3, CLF 4, UYW 4 …
    /// - Known crypto assets: USDC, USDT, EURC, PYUSD 6; BTC 8; ETH 8. ETH's
    ///   native precision is 18 decimals (wei); Tally caps crypto at 8 so that
    ///   realistic balances fit in 64-bit minor units. Amounts finer than
    ///   that must be rounded before they are recorded.
    /// - Any other valid code (tickers such as `VEA`, `IRAUSD`, metals such
    ///   as `XAU`, ISO codes without minor units such as `XDR`): scale 8.
    ///
    /// ```swift
    /// try Commodity.named("BHD").scale   // 3
    /// try Commodity.named("VEA").scale   // 8
    /// ```
    ///
    /// - Parameter code: an uppercase code, e.g. `"USD"`.
    /// - Throws: ``MoneyError/Code/invalidCommodity`` if `code` is not
    ///   1–16 characters of `[A-Z][A-Z0-9._-]*` (lowercase is rejected, not
    ///   converted).
    public static func named(_ code: String) throws -> Commodity {
        try validate(code: code)
        if let scale = ISOCurrencyTable.exponent(of: code) ?? cryptoScales[code] {
            return Commodity(uncheckedCode: code, scale: scale)
        }
        return Commodity(uncheckedCode: code, scale: defaultScale)
    }

    /// Known crypto assets whose scale differs from, or is worth stating
    /// next to, the default: stablecoins at 6 (their on-chain precision),
    /// BTC and ETH at 8 (ETH capped from 18).
    static let cryptoScales: [String: Int] = [
        "USDC": 6, "USDT": 6, "EURC": 6, "PYUSD": 6,
        "BTC": 8, "ETH": 8,
    ]

    /// US dollar, scale 2.
    public static let usd = Commodity(uncheckedCode: "USD", scale: 2)
    /// Euro, scale 2.
    public static let eur = Commodity(uncheckedCode: "EUR", scale: 2)
    /// Pound sterling, scale 2.
    public static let gbp = Commodity(uncheckedCode: "GBP", scale: 2)
    /// Japanese yen, scale 0.
    public static let jpy = Commodity(uncheckedCode: "JPY", scale: 0)
    /// Swiss franc, scale 2.
    public static let chf = Commodity(uncheckedCode: "CHF", scale: 2)
    /// Bahraini dinar, scale 3.
    public static let bhd = Commodity(uncheckedCode: "BHD", scale: 3)
    /// USD Coin, scale 6.
    public static let usdc = Commodity(uncheckedCode: "USDC", scale: 6)
    /// Bitcoin, scale 8 (one minor unit is one satoshi).
    public static let btc = Commodity(uncheckedCode: "BTC", scale: 8)

    /// Whether the code is an active ISO 4217 currency code with a minor-unit
    /// exponent (`USD`, `JPY`, `CLF` …), whatever this commodity's scale.
    ///
    /// ```swift
    /// Commodity.usd.isISOCurrency    // true
    /// Commodity.usdc.isISOCurrency   // false
    /// ```
    public var isISOCurrency: Bool {
        ISOCurrencyTable.exponent(of: code) != nil
    }

    /// The code, e.g. `"USD"`.
    public var description: String { code }

    static func validate(code: String) throws {
        // The messages are built only on the error paths: a valid code (every code read
        // back from the log) costs one pass over its bytes and no allocation.
        func rule() -> String {
            "use 1 to \(codeLengthLimit) characters: an uppercase letter A-Z first, then A-Z, 0-9, '.', '_' or '-'"
        }
        func isUpper(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        var count = 0
        var isValid = true
        for byte in code.utf8 {
            isValid = isValid && (isUpper(byte) || (count > 0 && (isDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-"))))
            count += 1
        }
        guard count > 0 else {
            throw MoneyError(.invalidCommodity, "a commodity code is empty; \(rule())")
        }
        guard count <= codeLengthLimit else {
            throw MoneyError(.invalidCommodity, "commodity code \(MoneyError.quoted(code)) is too long; \(rule())")
        }
        guard isValid else {
            let upper = code.uppercased()
            let suggestion = upper != code && (try? validate(code: upper)) != nil ? " (did you mean \(upper.debugDescription)?)" : ""
            throw MoneyError(.invalidCommodity, "commodity code \(MoneyError.quoted(code)) is invalid; \(rule())\(suggestion)")
        }
    }
}
