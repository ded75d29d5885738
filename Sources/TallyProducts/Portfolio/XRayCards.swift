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
        /// The exposure warning: the largest share of value in one country or one sector.
        case exposure
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
    /// Why the insight matters to the user, whatever its value.
    public let whyItMatters: String
    /// What to do next: a step to take when the severity is medium or high, or that
    /// nothing needs doing when it is low.
    public let nextStep: String

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
    /// The five cards, in ``XRayCard/Kind`` order; each metric is the snapshot's. None for
    /// an empty portfolio: the X-ray's empty state, with nothing to judge.
    static func cards(
        holdings: [XRayHolding], concentration: XRayMetric, homeBias: XRayMetric, illiquidity: XRayMetric,
        dataConfidence: XRayMetric, exposure: (metric: XRayMetric, group: XRayExposure?), baseCurrency: Commodity
    ) -> [XRayCard] {
        guard !holdings.isEmpty else { return [] }
        let largest = holdings.sorted { $0.weightBasisPoints != $1.weightBasisPoints ? $0.weightBasisPoints > $1.weightBasisPoints : $0.assetId < $1.assetId }
        let home = XRayRules.homeCountries(of: baseCurrency)
        let homeHoldings = largest.filter { XRayRules.isHome($0, baseCurrency: baseCurrency) }
        let illiquid = largest.filter(XRayRules.isIlliquid)
        let unconfident = largest.filter { !XRayRules.isConfident($0) }

        func card(_ kind: XRayCard.Kind, _ metric: XRayMetric, _ causes: [XRayHolding], reason: (XRayHolding) -> String? = { _ in nil }, _ explanation: String) -> XRayCard {
            XRayCard(kind: kind, metric: metric, items: causes.prefix(XRayRules.cardItemsMax).map { holding in
                XRayCardItem(assetId: holding.assetId, name: holding.name, weightBasisPoints: holding.weightBasisPoints, reason: reason(holding))
            }, itemCount: causes.count, explanation: explanation, whyItMatters: whyItMatters(kind),
                     nextStep: nextStep(kind, metric.severity, exposure: exposure.group))
        }
        let exposed = exposure.group.map { group in largest.filter { group.dimension.key($0) == group.group } } ?? []
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
            card(.exposure, exposure.metric, exposed, """
                \(percent(exposure.metric.value)) of the value is in one \(exposure.group.map { "\($0.dimension.rawValue), \($0.group)" } ?? "country or sector") \
                (medium from \(percent(XRayRules.exposureMediumFromBasisPoints)), high from \(percent(XRayRules.exposureHighFromBasisPoints))); \
                the largest: \(named(exposed.first)).
                """),
        ]
    }

    /// Why each insight matters, whatever its value.
    static func whyItMatters(_ kind: XRayCard.Kind) -> String {
        switch kind {
        case .concentration:
            "A portfolio that leans on a few holdings rises and falls with them: one bad year for the largest sets the whole back."
        case .homeBias:
            "Holding mostly your own country ties your savings to the economy your income depends on: a downturn at home hits both."
        case .illiquidity:
            "Real estate and custom assets take weeks or months to sell, and their values are estimates: that money is slow to reach in an emergency."
        case .dataConfidence:
            "Stale prices and missing tags make every other card less reliable: the X-ray judges only what it knows."
        case .exposure:
            "Holdings in one country or one sector tend to fall together: owning many of them does not spread a risk they share."
        }
    }

    /// What to do next for an insight at a severity: a step for medium and high, and that
    /// nothing needs doing for low.
    static func nextStep(_ kind: XRayCard.Kind, _ severity: XRayRules.Severity, exposure: XRayExposure?) -> String {
        guard severity != .low else {
            switch kind {
            case .concentration: return "Nothing to do: no holding dominates."
            case .homeBias: return "Nothing to do: most of the value is spread beyond home."
            case .illiquidity: return "Nothing to do: most of the value can be sold quickly."
            case .dataConfidence: return "Nothing to do: the prices are fresh and the holdings tagged."
            case .exposure: return "Nothing to do: no country or sector dominates."
            }
        }
        switch kind {
        case .concentration:
            return "Direct new money to other holdings until the largest weighs less; a broad index fund lowers the score at once."
        case .homeBias:
            return "Put part of new savings into international funds."
        case .illiquidity:
            return "Keep an emergency fund in cash or liquid funds, and update these assets' values regularly (`tally reminder set`)."
        case .dataConfidence:
            return "Refresh the stale prices and add the missing country and sector tags of the holdings listed."
        case .exposure:
            return "Add holdings from other \(exposure?.dimension == .sector ? "sectors" : "countries"), or direct new money away from \(exposure?.group ?? "the largest group")."
        }
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
