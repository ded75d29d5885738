internal import TallyLog

/// What one reading thread's decodes share: the short texts and the commodities met
/// recently. Events repeat a few account names and currency codes over and over; each equal
/// text is then the string already made (``RecentTexts``), and each commodity the one
/// already looked up (in a rebuild of a million journal entries, making those strings and
/// commodities was about a sixth of the reading thread's time).
///
/// Not for sharing: one per read of the log (``EventStoreReader/forEach(from:through:_:)``
/// makes its own), used by one thread at a time. Its state is `@exclusivity(unchecked)`
/// for that reason: a stored property of a class is checked for exclusive access at every
/// use, which cost as much as the look-up.
@usableFromInline
final class DecodedTexts {
    /// The lengths of the texts kept (``RecentTexts``): names are short, and a long text (a
    /// note) rarely repeats.
    @usableFromInline static let kept = 16...48
    private static let commoditySlots = 8
    @exclusivity(unchecked) private var texts = RecentTexts(slotCount: 64, kept: kept)
    @exclusivity(unchecked) private var commodities: [Commodity?] = Array(repeating: nil, count: commoditySlots)

    @usableFromInline init() {}

    /// The text of `bytes`, the one met recently when equal; nil when they are not valid UTF-8.
    @usableFromInline
    func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        texts.text(UnsafeRawBufferPointer(bytes))
    }

    /// The commodity of `code` (``Commodity/named(_:)``), the one met recently when equal.
    func commodity(_ code: String) throws -> Commodity {
        let utf8 = code.utf8
        let place = (utf8.count &+ Int(utf8.last ?? 0)) & (Self.commoditySlots - 1)
        if let recent = commodities[place], recent.code == code { return recent }
        let commodity = try Commodity.named(code)
        commodities[place] = commodity
        return commodity
    }
}
