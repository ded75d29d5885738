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
    static func next(after previous: [UInt8], _ event: LoggedEvent) -> [UInt8] {
        var hasher = SHA256()
        var fixed = ByteWriter(capacity: 32 + 42 + 12)
        fixed.append(contentsOf: previous)
        fixed.append(event.sequence)
        fixed.append(event.recordedAt)
        fixed.append(event.effectiveAt)
        fixed.append(event.kind)
        fixed.append(event.version)
        fixed.append(event.cause ?? 0)
        var entity = event.entity
        entity.withUTF8 { utf8 in
            fixed.append(UInt32(utf8.count))
            fixed.bytes.append(contentsOf: utf8)
        }
        if var key = event.idempotencyKey {
            key.withUTF8 { utf8 in
                fixed.append(UInt32(utf8.count))
                fixed.bytes.append(contentsOf: utf8)
            }
        } else {
            fixed.append(UInt32(0))
        }
        fixed.append(UInt32(event.payload.count))
        fixed.bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        event.payload.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return hasher.finalize().withUnsafeBytes { Array($0) }
    }
}
