/// Strings from UTF-8 bytes on the hot paths (decoding a frame's records and an event's
/// payload, reading a CSV field), with the validation `String(validating:as:)` gives but
/// without its generic, unspecialized path for the common case: bytes that are all ASCII are
/// valid UTF-8 as they stand.
@usableFromInline
package enum UTF8Text {
    /// The text of `bytes`, or nil when they are not valid UTF-8.
    ///
    /// ```swift
    /// let text = bytes.withUnsafeBufferPointer { UTF8Text.string($0) }
    /// ```
    @inlinable
    package static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        for byte in bytes where byte >= 0x80 {
            return String(validating: bytes, as: UTF8.self)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
