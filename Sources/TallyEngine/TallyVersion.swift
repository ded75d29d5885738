/// The version of the Tally engine.
public enum TallyVersion {
    /// The version as `MAJOR.MINOR.PATCH`.
    public static let string = "0.1.0"
}
