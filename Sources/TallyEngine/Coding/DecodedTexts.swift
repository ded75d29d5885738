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
    /// Texts by sealed reference, below ``referencesKept`` (references count up from 0 as
    /// texts are first sealed: a household's payees and categories are a few hundred).
    @exclusivity(unchecked) private var references: [String?] = []
    @exclusivity(unchecked) private var referencesErasures: UInt64 = 0
    @exclusivity(unchecked) private var referencesKeys: SubjectKeys?
    private static let referencesKept: UInt64 = 1 << 16

    /// Sealed bytes by reference (``sealedText(forReference:in:)``), and the scratch buffer a
    /// content key's expansion writes its digest's input and its text into: a rebuild expands
    /// a million keys (``JournalCSV/LoggedContentKey``).
    @exclusivity(unchecked) private var sealedByReference: [[UInt8]?] = []
    @exclusivity(unchecked) private var sealedKeys: SubjectKeys?
    @exclusivity(unchecked) var contentKeyScratch: [UInt8] = []

    @usableFromInline init() {}

    /// The sealed bytes of a reference (``SubjectKeys/sealedText(forReference:)``), kept for
    /// this read; nil when `SUBJECTS` lacks it. Sealed bytes never change (an erasure keeps them).
    func sealedText(forReference reference: UInt64, in keys: SubjectKeys) -> [UInt8]? {
        guard reference < Self.referencesKept else { return keys.sealedText(forReference: reference) }
        if keys !== sealedKeys {
            sealedByReference.removeAll(keepingCapacity: true)
            sealedKeys = keys
        }
        let index = Int(reference)
        if index < sealedByReference.count, let sealed = sealedByReference[index] { return sealed }
        guard let sealed = keys.sealedText(forReference: reference) else { return nil }
        if index >= sealedByReference.count { sealedByReference.append(contentsOf: repeatElement(nil, count: index + 1 - sealedByReference.count)) }
        sealedByReference[index] = sealed
        return sealed
    }

    /// The text of `bytes`, the one met recently when equal; nil when they are not valid UTF-8.
    @usableFromInline
    func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        texts.text(UnsafeRawBufferPointer(bytes))
    }

    /// The text a sealed reference names (``SubjectKeys/text(forReference:)``), kept by
    /// reference for this read: the keys' own cache takes a lock and a hash per look-up, and
    /// a journal entry's payee and category are each one. Emptied when the keys have erased a
    /// subject since it was filled, so a reader sees an erasure as the keys' cache does.
    func text(forReference reference: UInt64, in keys: SubjectKeys) -> String {
        guard reference < Self.referencesKept else { return keys.text(forReference: reference) }
        let erasures = keys.erasures
        if erasures != referencesErasures || keys !== referencesKeys {
            references.removeAll(keepingCapacity: true)
            referencesErasures = erasures
            referencesKeys = keys
        }
        let index = Int(reference)
        if index < references.count, let text = references[index] { return text }
        let text = keys.text(forReference: reference)
        if index >= references.count { references.append(contentsOf: repeatElement(nil, count: index + 1 - references.count)) }
        references[index] = text
        return text
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
