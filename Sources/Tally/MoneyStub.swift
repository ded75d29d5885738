// TEMPORARY: replaced by Sources/Tally/Money when that branch merges.
public struct MoneyError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
public struct Commodity: Hashable, Sendable, CustomStringConvertible {
    public let code: String
    public let scale: Int
    public init(code: String, scale: Int) throws { self.code = code; self.scale = scale }
    public static func named(_ code: String) throws -> Commodity {
        guard let first = code.first, first.isUppercase else { throw MoneyError(message: "bad commodity '\(code)'") }
        return Commodity(uncheckedCode: code, scale: ["JPY": 0, "BHD": 3, "USDC": 6].merging(["USD": 2, "GBP": 2, "EUR": 2]) { a, _ in a }[code] ?? 8)
    }
    init(uncheckedCode: String, scale: Int) { self.code = uncheckedCode; self.scale = scale }
    public static let usd = Commodity(uncheckedCode: "USD", scale: 2)
    public static let gbp = Commodity(uncheckedCode: "GBP", scale: 2)
    public static let jpy = Commodity(uncheckedCode: "JPY", scale: 0)
    public static let usdc = Commodity(uncheckedCode: "USDC", scale: 6)
    public var description: String { code }
}
public struct ExactDecimal: Hashable, Sendable, CustomStringConvertible {
    public let significand: Int64
    public let scale: Int
    public init(significand: Int64, scale: Int) throws { self.significand = significand; self.scale = scale }
    public init(parsing text: String) throws {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard let whole = Int64(parts.joined()) else { throw MoneyError(message: "bad decimal '\(text)'") }
        significand = whole; scale = parts.count == 2 ? parts[1].count : 0
    }
    public var decimalString: String { String(significand) + "e-\(scale)" }
    public var description: String { decimalString }
}
public struct Money: Hashable, Sendable, CustomStringConvertible {
    public let minorUnits: Int64
    public let commodity: Commodity
    public init(minorUnits: Int64, commodity: Commodity) { self.minorUnits = minorUnits; self.commodity = commodity }
    public init(parsing text: String, commodity: Commodity) throws {
        let d = try ExactDecimal(parsing: text)
        var v = d.significand
        for _ in d.scale..<commodity.scale { v *= 10 }
        self.init(minorUnits: v, commodity: commodity)
    }
    public var decimalString: String { String(minorUnits) }
    public var description: String { "\(decimalString) \(commodity.code)" }
    public var isNegative: Bool { minorUnits < 0 }
    public var isPositive: Bool { minorUnits > 0 }
}
