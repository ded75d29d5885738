import Crypto

/// The per-event hash chain: `hash(n) = SHA256(hash(n − 1) ‖ canonical(n))`, `hash(0)` = 32 zero bytes.
///
/// `canonical(n)` is fixed-width, little-endian, and independent of how events are packed into frames:
///
/// ```
/// sequence u64 ‖ recordedAt i64 ‖ effectiveAt i64 ‖ kind u32 ‖ version u16 ‖ cause u64 (0 = none)
/// ‖ entity length u32 ‖ entity ‖ key length u32 (0 = none) ‖ key ‖ payload length u32 ‖ payload
/// ```
enum ChainHash {
    /// Bytes of the fixed-width fields (sequence through cause) and the entity's length.
    private static let fixedBytes = 8 + 8 + 8 + 4 + 2 + 8 + 4

    /// A step is taken for every event appended, read or verified, so the canonical form is
    /// not gathered into an array: the fixed-width fields go through a buffer on the stack and
    /// the texts and payload straight from their own storage (the digest's context and the
    /// result are the step's only allocations).
    static func next(after previous: [UInt8], _ event: LoggedEvent) -> [UInt8] {
        var hasher = SHA256()
        previous.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        var entity = event.entity
        entity.withUTF8 { utf8 in
            withUnsafeTemporaryAllocation(byteCount: fixedBytes, alignment: 8) { fixed in
                var at = 0
                func put<T: FixedWidthInteger>(_ value: T) {
                    fixed.storeBytes(of: value.littleEndian, toByteOffset: at, as: T.self)
                    at += MemoryLayout<T>.size
                }
                put(event.sequence)
                put(event.recordedAt)
                put(event.effectiveAt)
                put(event.kind)
                put(event.version)
                put(event.cause ?? 0)
                put(UInt32(utf8.count))
                hasher.update(bufferPointer: UnsafeRawBufferPointer(fixed))
            }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(utf8))
        }
        if var key = event.idempotencyKey {
            key.withUTF8 { utf8 in
                withLength(UInt32(utf8.count), &hasher)
                hasher.update(bufferPointer: UnsafeRawBufferPointer(utf8))
            }
        } else {
            withLength(0, &hasher)
        }
        withLength(UInt32(event.payload.count), &hasher)
        event.payload.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return hasher.finalize().withUnsafeBytes { Array($0) }
    }

    private static func withLength(_ length: UInt32, _ hasher: inout SHA256) {
        withUnsafeBytes(of: length.littleEndian) { hasher.update(bufferPointer: $0) }
    }
}
