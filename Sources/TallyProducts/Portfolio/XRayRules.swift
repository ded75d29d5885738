public import TallyEngine

/// The X-ray's documented judgement calls (DOMAIN.md §5), in one place: severity bands,
/// group limits, home countries and what counts as illiquid.
public enum XRayRules {
    /// How worrying a metric is.
    public enum Severity: String, Hashable, Sendable {
        /// Below the metric's lower band: nothing to act on.
        case low
        /// Between the metric's bands: worth a look.
        case medium
        /// Above the metric's upper band: the portfolio leans hard on it.
        case high
    }

    /// Groups shown by name before the rest are summed as "Other".
    public static let topGroupCount = 5

    /// Concentration score (100 × Σ wᵢ², 0–100, kept in hundredths): below 15 low, 15 to 25
    /// medium, above 25 high — the HHI bands of 1,500 and 2,500 antitrust practice uses.
    public static func concentrationSeverity(hundredths: Int64) -> Severity {
        hundredths < 15_00 ? .low : hundredths <= 25_00 ? .medium : .high
    }

    /// Home bias (share of value in the base currency's country): below 50% low, 50% to
    /// 80% medium, 80% or more high.
    public static func homeBiasSeverity(basisPoints: Int64) -> Severity {
        basisPoints < 5_000 ? .low : basisPoints < 8_000 ? .medium : .high
    }

    /// Illiquidity (property and custom assets over the total): below 20% low, 20% to 40%
    /// medium, 40% or more high.
    public static func illiquiditySeverity(basisPoints: Int64) -> Severity {
        basisPoints < 2_000 ? .low : basisPoints < 4_000 ? .medium : .high
    }

    /// Data confidence (share of value with fresh prices and full tags): 80% or more is a
    /// low concern, 50% to 80% medium, below 50% high.
    public static func dataConfidenceSeverity(basisPoints: Int64) -> Severity {
        basisPoints >= 8_000 ? .low : basisPoints >= 5_000 ? .medium : .high
    }

    /// Asset types counted as illiquid.
    public static let illiquidTypes: Set<AssetType> = [.realEstate, .custom]

    /// The countries (ISO 3166-1 alpha-2) whose assets count as "home" for a base currency.
    public static func homeCountries(of currency: Commodity) -> Set<String> {
        switch currency.code {
        case "EUR": ["AT", "BE", "CY", "DE", "EE", "ES", "FI", "FR", "GR", "HR", "IE", "IT", "LT", "LU", "LV", "MT", "NL", "PT", "SI", "SK"]
        case "USD": ["US"]
        case "GBP": ["GB"]
        case "JPY": ["JP"]
        case "CHF": ["CH", "LI"]
        case "CAD": ["CA"]
        case "AUD": ["AU"]
        case "NZD": ["NZ"]
        case "SEK": ["SE"]
        case "NOK": ["NO"]
        case "DKK": ["DK"]
        case "SGD": ["SG"]
        case "HKD": ["HK"]
        case "INR": ["IN"]
        default: [String(currency.code.prefix(2))]
        }
    }
}
