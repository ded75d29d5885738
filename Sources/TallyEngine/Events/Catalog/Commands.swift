// Events about commands themselves, not about money.

/// The end of a command that used an idempotency key and recorded events its first event did
/// not cause (a resume's splits name their deposits, an amendment's new split names the
/// deposit): its cause is the command's first event, and it is the command's last event. A
/// repeat of the key returns every event from the first through this one, exactly what the
/// command returned when it ran, and nothing recorded after it. It moves no money; only the
/// idempotency read model reads it.
public struct CommandCompleted: EventPayload, MovesNoMoney {
    public static let eventType = EventType("command_completed", code: 134)

    /// The end of the command whose first event is this event's cause.
    public init() {}

    public var entity: String { "ledger" }
}

extension CommandCompleted: ExampleProviding {
    public static var example: CommandCompleted {
        CommandCompleted()
    }
}
