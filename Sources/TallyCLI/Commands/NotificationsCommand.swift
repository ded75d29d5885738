import ArgumentParser
import Tally

/// `tally notifications`: what the ledger tells its user (docs/notifications.md), as of a
/// day, oldest first.
struct NotificationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications", abstract: "What the ledger tells you: deposits and their split, bills due or overdue, overspending, reminders, stale prices, milestones.",
        discussion: ListHelp.days + " " + """
            Oldest first (by the ledger time each refers to, then id). --since ID lists only \
            what comes after the notification ID (the last one you saw); --kind K (repeatable) \
            only those kinds: \(NotificationKind.standard.map(\.rawValue).joined(separator: ", ")). \
            A notification's id is stable: the same one on every run, after a rebuild and on \
            every node. JSON adds its subject, the events that caused it and its exact figures.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: ArgumentHelp("Only what comes after the notification with this id.", valueName: "ID")) var since: String?
    @Option(name: .customLong("kind"), help: ArgumentHelp("Only this kind (repeatable).", valueName: "K")) var kinds: [String] = []
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ListFormatOptions

    func run() throws {
        try storeOptions.withReadingLedger { ledger in
            let (asOf, knownAt) = (try time.asOfInstant(ledger), try time.knownAtInstant(ledger))
            let notes = try ledger.notifications(asOf: asOf ?? .latest, knownAt: knownAt, kinds: kinds.map(NotificationKind.init(rawValue:)), since: since)
            let page = try output.page(of: notes.count, ledger, asOf: asOf, knownAt: knownAt)
            switch output.chosen {
            case .json:
                print(JSONText.list(page.slice(notes).map { NotificationOutput.json($0, calendar: ledger.calendar) }, paging: JSONPaging(page)))
            case .csv, .table:
                var table = ListTable([ListColumn("date"), ListColumn("kind"), ListColumn("message"), ListColumn("id"),
                                       ListColumn("at"), ListColumn("subject"), ListColumn("causes")])
                for note in notes {
                    table.append([.day(ledger.calendar.date(of: note.at)), .text(note.kind.rawValue), .text(note.message), .text(note.id),
                                  .text(note.at.description), .text(note.subject), .text(note.causes.map(String.init).joined(separator: " "))])
                }
                if output.chosen == .table {
                    // People read the day, the kind and the message; the rest is for programs.
                    var short = ListTable([ListColumn("date"), ListColumn("kind"), ListColumn("message"), ListColumn("id")])
                    for row in table.rows { short.append(Array(row.prefix(4))) }
                    short.print(.table, page: page, empty: "no notifications")
                } else {
                    table.print(.csv, page: page, empty: "")
                }
            }
        }
    }
}

/// A notification as one line of JSON: exact figures as strings, causes as numbers.
enum NotificationOutput {
    static func json(_ note: LedgerNotification, calendar: LedgerCalendar) -> String {
        let figures = "{" + note.figures.keys.sorted().map { "\(EventJSON.quoted($0)):\(EventJSON.quoted(note.figures[$0]!))" }
            .joined(separator: ",") + "}"
        return Output.jsonObject([
            ("id", EventJSON.quoted(note.id)), ("kind", EventJSON.quoted(note.kind.rawValue)),
            ("at", EventJSON.quoted(note.at.description)), ("date", EventJSON.quoted(calendar.date(of: note.at).description)),
            ("subject", EventJSON.quoted(note.subject)), ("causes", "[" + note.causes.map(String.init).joined(separator: ",") + "]"),
            ("message", EventJSON.quoted(note.message)), ("figures", figures),
        ])
    }
}
