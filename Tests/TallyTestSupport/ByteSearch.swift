#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Literal searches over bytes, for checks that scan every file of a store or long answers
/// for a text (an erased name, a secret that must be sealed): `memchr` and `memcmp` run at the
/// speed of C, where a Swift loop over the bytes or Foundation's `String` search (which goes through
/// UTF-16 on Linux) costs seconds per test in a debug build. Matches are exact UTF-8 bytes.
public enum ByteSearch {
    /// The offset of the first occurrence of `needle` in `haystack` at or after `start`.
    public static func firstOffset(of needle: [UInt8], in haystack: [UInt8], from start: Int = 0) -> Int? {
        haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pin in firstOffset(of: pin, in: hay, from: start) }
        }
    }

    /// The search itself: `memchr` finds each place the needle's first byte is, `memcmp`
    /// compares the rest.
    static func firstOffset(of needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let first = needle.first, start >= 0, haystack.count - start >= needle.count,
              let base = haystack.baseAddress, let pattern = needle.baseAddress else { return nil }
        let last = haystack.count - needle.count  // the last offset a match can start at
        var offset = start
        while offset <= last {
            guard let found = memchr(base + offset, Int32(first), last - offset + 1) else { return nil }
            offset = base.distance(to: UnsafeRawPointer(found))
            if memcmp(found, pattern, needle.count) == 0 { return offset }
            offset += 1
        }
        return nil
    }

    /// Whether `haystack` holds the UTF-8 bytes of `needle`.
    public static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        firstOffset(of: Array(needle.utf8), in: haystack) != nil
    }

    /// Whether `haystack` (a file's text, one of its lines) holds `needle`, compared as UTF-8
    /// bytes where the text already keeps them (no copy).
    public static func contains(_ haystack: Substring, _ needle: String) -> Bool {
        var haystack = haystack
        var needle = needle
        return haystack.withUTF8 { hay in
            needle.withUTF8 { pin in firstOffset(of: UnsafeRawBufferPointer(pin), in: UnsafeRawBufferPointer(hay), from: 0) != nil }
        }
    }

    /// Whether `haystack` holds `needle`, compared as UTF-8 bytes.
    public static func contains(_ haystack: String, _ needle: String) -> Bool {
        contains(haystack[...], needle)
    }

    /// `bytes` with every occurrence of `target` replaced by `replacement`, found from left to
    /// right without overlapping (as `replacingOccurrences(of:with:)` does).
    public static func replacing(_ target: String, with replacement: String, in bytes: [UInt8]) -> [UInt8] {
        let needle = Array(target.utf8)
        return replacing(in: bytes, with: Array(replacement.utf8)) { bytes, start in
            firstOffset(of: needle, in: bytes, from: start).map { $0..<($0 + needle.count) }
        }
    }

    /// `bytes` with each range that `next` finds (the first match at or after an offset, or
    /// nil) replaced by `replacement`, from left to right.
    public static func replacing(
        in bytes: [UInt8], with replacement: [UInt8], matching next: ([UInt8], Int) -> Range<Int>?
    ) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var start = 0
        while let match = next(bytes, start) {
            result.append(contentsOf: bytes[start..<match.lowerBound])
            result.append(contentsOf: replacement)
            start = match.upperBound
        }
        result.append(contentsOf: bytes[start...])
        return result
    }

    /// The pieces of `bytes` between occurrences of `separator`, empty ones included (as
    /// `components(separatedBy:)` splits).
    public static func split(_ bytes: [UInt8], separator: String) -> [ArraySlice<UInt8>] {
        let separator = Array(separator.utf8)
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        while let found = firstOffset(of: separator, in: bytes, from: start) {
            pieces.append(bytes[start..<found])
            start = found + separator.count
        }
        pieces.append(bytes[start...])
        return pieces
    }
}
