#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// What one reading thread's decodes share: the short texts and the commodities met
/// recently. Events repeat a few account names and currency codes over and over; each equal
/// text is then the string already made, compared byte for byte, instead of a new string
/// allocated and a commodity looked up again (in a rebuild of a million journal entries,
/// making those strings and commodities was about a sixth of the reading thread's time).
///
/// Not for sharing: one per read of the log (``EventStoreReader/forEach(from:through:_:)``
/// makes its own), used by one thread at a time.
@usableFromInline
final class DecodedTexts {
    /// The texts kept: a shorter one lives inside its `String` value (up to 15 bytes of
    /// UTF-8 on a 64-bit machine), made without allocating, so keeping it would save
    /// nothing; a longer one (a note) rarely repeats.
    @usableFromInline static let kept = 16...48
    private static let textSlots = 64
    private static let commoditySlots = 8
    /// Recent texts, by a mix of their length and first and last bytes. Buffers owned by
    /// this object rather than arrays: a stored array of a class is checked for exclusive
    /// access at every use, which cost as much as the look-up.
    private let texts: UnsafeMutablePointer<String?>
    private let commodities: UnsafeMutablePointer<Commodity?>

    @usableFromInline init() {
        texts = .allocate(capacity: Self.textSlots)
        texts.initialize(repeating: nil, count: Self.textSlots)
        commodities = .allocate(capacity: Self.commoditySlots)
        commodities.initialize(repeating: nil, count: Self.commoditySlots)
    }

    deinit {
        texts.deinitialize(count: Self.textSlots)
        texts.deallocate()
        commodities.deinitialize(count: Self.commoditySlots)
        commodities.deallocate()
    }

    /// The text of `bytes` (as many as ``kept`` allows), the one met recently when equal;
    /// nil when they are not valid UTF-8.
    @usableFromInline
    func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let first = bytes.first, let last = bytes.last else { return "" }
        let place = (bytes.count &* 7 &+ Int(first) &* 3 &+ Int(last)) & (Self.textSlots - 1)
        if let recent = texts[place], Self.equal(recent, bytes) { return recent }
        let text = UTF8Text.string(bytes)
        if text != nil { texts[place] = text }
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

    private static func equal(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            utf8.count == bytes.count && memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0
        }
    }
}
