public import TallyEngine

/// One insight of the X-ray (docs/domain.md §5): a metric, its severity by the bands of
/// ``XRayRules``, the holdings that cause it, and a one-line explanation.
public struct XRayCard: Hashable, Sendable {
    /// Which insight.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// 100 × Σ wᵢ²: how much the portfolio leans on a few holdings.
        case concentration
        /// The share of value in the base currency's country.
        case homeBias = "home_bias"
        /// The share of value in real estate and custom assets.
        case illiquidity
        /// The share of value with a fresh price and full tags.
        case dataConfidence = "data_confidence"
    }

    /// Which insight.
    public let kind: Kind
    /// Its value (hundredths of a point for concentration, basis points for the shares) and severity.
    public let metric: XRayMetric
    /// The holdings that cause it, largest first, at most ``XRayRules/cardItemsMax``: the
    /// largest holdings (concentration), the home ones (home bias), the illiquid ones
    /// (illiquidity), the stale or untagged ones (data confidence).
    public let items: [XRayCardItem]
    /// How many holdings cause it in all (``items`` lists the largest).
    public let itemCount: Int
    /// One line saying what the value means, naming the largest cause.
    public let explanation: String

    /// How worrying it is.
    public var severity: XRayRules.Severity { metric.severity }
}

/// A holding a card names as a cause.
public struct XRayCardItem: Hashable, Sendable {
    /// The asset's id.
    public let assetId: String
    /// What the user calls it.
    public let name: String
    /// Its share of the included total, basis points.
    public let weightBasisPoints: Int64
    /// Why it counts, for data confidence (`stale price`, `no country tag`, `no sector tag`,
    /// joined by `, `); nil for the other cards.
    public let reason: String?
}

/// A holding's unrealised gain: its value less what its position cost, both in the base
/// currency at the rates in force at the point asked about.
public struct UnrealisedGain: Hashable, Sendable {
    /// The asset's id.
    public let assetId: String
    /// What the user calls it.
    public let name: String
    /// The position's cost basis as recorded, in its own currency.
    public let costBasis: Money
    /// The cost basis in the base currency.
    public let costConverted: Money
    /// The holding's value in the base currency (``XRayHolding/converted``).
    public let value: Money
    /// `value − costConverted`: positive a gain, negative a loss.
    public let gain: Money
}

/// The X-ray's cards, built from the holdings of a snapshot: one place for which holdings
/// cause each insight and how it is explained.
enum XRayCards {
    /// The four cards, in ``XRayCard/Kind`` order; each metric is the snapshot's.
    static func cards(
        holdings: [XRayHolding], concentration: XRayMetric, homeBias: XRayMetric, illiquidity: XRayMetric,
        dataConfidence: XRayMetric, baseCurrency: Commodity
    ) -> [XRayCard] {
        let largest = holdings.sorted { $0.weightBasisPoints != $1.weightBasisPoints ? $0.weightBasisPoints > $1.weightBasisPoints : $0.assetId < $1.assetId }
        let home = XRayRules.homeCountries(of: baseCurrency)
        let homeHoldings = largest.filter { XRayRules.isHome($0, baseCurrency: baseCurrency) }
        let illiquid = largest.filter(XRayRules.isIlliquid)
        let unconfident = largest.filter { !XRayRules.isConfident($0) }

        func card(_ kind: XRayCard.Kind, _ metric: XRayMetric, _ causes: [XRayHolding], reason: (XRayHolding) -> String? = { _ in nil }, _ explanation: String) -> XRayCard {
            XRayCard(kind: kind, metric: metric, items: causes.prefix(XRayRules.cardItemsMax).map { holding in
                XRayCardItem(assetId: holding.assetId, name: holding.name, weightBasisPoints: holding.weightBasisPoints, reason: reason(holding))
            }, itemCount: causes.count, explanation: explanation)
        }
        func named(_ holding: XRayHolding?) -> String {
            holding.map { "\($0.name) (\(percent($0.weightBasisPoints)))" } ?? "none"
        }
        let homeNames = home.count == 1 ? home.first! : "the \(baseCurrency.code) countries"
        return [
            card(.concentration, concentration, Array(largest), """
                Score \(decimal(concentration.value)) of 100 (medium from \(decimal(XRayRules.concentrationMediumFromHundredths)), \
                high above \(decimal(XRayRules.concentrationHighAboveHundredths))): the largest holding is \(named(largest.first)).
                """),
            card(.homeBias, homeBias, homeHoldings, """
                \(percent(homeBias.value)) of the value is in \(homeNames), home for \(baseCurrency.code) \
                (medium from \(percent(XRayRules.homeBiasMediumFromBasisPoints)), high from \(percent(XRayRules.homeBiasHighFromBasisPoints))); \
                the largest: \(named(homeHoldings.first)).
                """),
            card(.illiquidity, illiquidity, illiquid, """
                \(percent(illiquidity.value)) of the value is in real estate and custom assets, slow to sell \
                (medium from \(percent(XRayRules.illiquidityMediumFromBasisPoints)), high from \(percent(XRayRules.illiquidityHighFromBasisPoints))); \
                the largest: \(named(illiquid.first)).
                """),
            card(.dataConfidence, dataConfidence, unconfident, reason: reasons, """
                \(percent(dataConfidence.value)) of the value has a fresh price and full tags (a concern below \
                \(percent(XRayRules.dataConfidenceMediumBelowBasisPoints)), high below \(percent(XRayRules.dataConfidenceHighBelowBasisPoints))); \
                \(unconfident.count) holding\(unconfident.count == 1 ? " lacks" : "s lack") them, the largest: \(named(unconfident.first)).
                """),
        ]
    }

    /// Why a holding lowers data confidence.
    private static func reasons(_ holding: XRayHolding) -> String {
        var reasons: [String] = []
        if holding.isStale { reasons.append("stale price") }
        if holding.country == nil { reasons.append("no country tag") }
        if holding.sector == nil { reasons.append("no sector tag") }
        return reasons.joined(separator: ", ")
    }

    /// Hundredths as a decimal with two places: 6800 → "68.00".
    static func decimal(_ hundredths: Int64) -> String {
        let magnitude = hundredths.magnitude
        let fraction = magnitude % 100
        return "\(hundredths < 0 ? "-" : "")\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// Basis points as a percentage: 8000 → "80.00%".
    static func percent(_ basisPoints: Int64) -> String { decimal(basisPoints) + "%" }
}
