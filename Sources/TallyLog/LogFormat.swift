/// Constants of the on-disk log format, documented byte by byte in `Schemas/log-format.md`.
public enum LogFormat {
    /// The format version written into every segment and frame header.
    public static let version: UInt16 = 1
}
