public import TallyEngine

/// The X-ray's documented judgement calls (docs/domain.md §5), in one place: severity bands,
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

    /// Holdings a card names as its causes, largest first.
    public static let cardItemsMax = 5

    /// Concentration score (100 × Σ wᵢ², 0–100, kept in hundredths): below 15 low, 15 to 25
    /// medium, above 25 high — the HHI bands of 1,500 and 2,500 antitrust practice uses.
    public static let concentrationMediumFromHundredths: Int64 = 15_00
    /// Above this (25.00) the concentration score is high.
    public static let concentrationHighAboveHundredths: Int64 = 25_00
    /// Home bias (share of value in the base currency's country): below 50% low, 50% to
    /// 80% medium, 80% or more high.
    public static let homeBiasMediumFromBasisPoints: Int64 = 5_000
    /// From this share (80%) home bias is high.
    public static let homeBiasHighFromBasisPoints: Int64 = 8_000
    /// Illiquidity (real estate and custom assets over the total): below 20% low, 20% to
    /// 40% medium, 40% or more high.
    public static let illiquidityMediumFromBasisPoints: Int64 = 2_000
    /// From this share (40%) illiquidity is high.
    public static let illiquidityHighFromBasisPoints: Int64 = 4_000
    /// Data confidence (share of value with fresh prices and full tags): 80% or more is a
    /// low concern, 50% to 80% medium, below 50% high.
    public static let dataConfidenceMediumBelowBasisPoints: Int64 = 8_000
    /// Below this share (50%) data confidence is a high concern.
    public static let dataConfidenceHighBelowBasisPoints: Int64 = 5_000

    /// Exposure (the largest share of value in one country or one sector, `Other` and
    /// `Unknown` aside): below 40% low, 40% to 60% medium, 60% or more high.
    public static let exposureMediumFromBasisPoints: Int64 = 4_000
    /// From this share (60%) one country's or one sector's exposure is high.
    public static let exposureHighFromBasisPoints: Int64 = 6_000
    /// In the allocation by type, the types holding less than this share (5%) of the value
    /// each are shown together as `Other`, when two or more are that small (a single small
    /// type keeps its name: `Other` would hide it for nothing).
    public static let allocationOtherBelowBasisPoints: Int64 = 500

    /// The exposure's band.
    public static func exposureSeverity(basisPoints: Int64) -> Severity {
        basisPoints < exposureMediumFromBasisPoints ? .low : basisPoints < exposureHighFromBasisPoints ? .medium : .high
    }

    /// The concentration score's band.
    public static func concentrationSeverity(hundredths: Int64) -> Severity {
        hundredths < concentrationMediumFromHundredths ? .low : hundredths <= concentrationHighAboveHundredths ? .medium : .high
    }

    /// Home bias's band.
    public static func homeBiasSeverity(basisPoints: Int64) -> Severity {
        basisPoints < homeBiasMediumFromBasisPoints ? .low : basisPoints < homeBiasHighFromBasisPoints ? .medium : .high
    }

    /// Illiquidity's band.
    public static func illiquiditySeverity(basisPoints: Int64) -> Severity {
        basisPoints < illiquidityMediumFromBasisPoints ? .low : basisPoints < illiquidityHighFromBasisPoints ? .medium : .high
    }

    /// Data confidence's band: the less value is well priced and tagged, the higher the concern.
    public static func dataConfidenceSeverity(basisPoints: Int64) -> Severity {
        basisPoints >= dataConfidenceMediumBelowBasisPoints ? .low : basisPoints >= dataConfidenceHighBelowBasisPoints ? .medium : .high
    }

    /// Asset types counted as illiquid.
    public static let illiquidTypes: Set<AssetType> = [.realEstate, .custom]

    /// Whether a holding counts toward home bias: tagged with a home country of the base currency.
    public static func isHome(_ holding: XRayHolding, baseCurrency: Commodity) -> Bool {
        holding.country.map(homeCountries(of: baseCurrency).contains) ?? false
    }

    /// Whether a holding counts toward illiquidity: of an illiquid type.
    public static func isIlliquid(_ holding: XRayHolding) -> Bool { illiquidTypes.contains(holding.type) }

    /// Whether a holding counts toward data confidence: country and sector tagged, price not stale
    /// (stale as net worth decides it, by the staleness threshold in force).
    public static func isConfident(_ holding: XRayHolding) -> Bool { holding.hasFullTags && !holding.isStale }

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
