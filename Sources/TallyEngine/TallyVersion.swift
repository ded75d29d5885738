/// The version of the Tally engine.
public enum TallyVersion {
    public static let string = "0.1.0"
}
