import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import TallyService

/// Notifications and charts over real HTTP (docs/notifications.md): JSON with exact figures,
/// and a chart as JSON or SVG by `Accept`.
@Suite struct NotificationRoutesTests {
    @Test func notificationsAndChartsAreServedAsOfADay() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("home")
        #expect(try await service.command("/ledgers/home/budgets", #"{"category":"groceries","month":"2026-05","maximum":"100.00"}"#).status == 201)
        for (payee, amount, date) in [("Market", "-60.00", "2026-05-10"), ("Grocer", "-45.50", "2026-05-24")] {
            let recorded = try await service.command("/ledgers/home/transactions", #"{"payee":"\#(payee)","category":"groceries","amount":"\#(amount)","date":"\#(date)"}"#)
            #expect(recorded.status == 201, "\(recorded.text)")
        }
        let early = try await service.send(.GET, "/ledgers/home/notifications?as_of=2026-05-20")
        #expect(early.status == 200, "\(early.text)")
        #expect(early.json.objects("notifications").isEmpty)
        let notes = try await service.send(.GET, "/ledgers/home/notifications?as_of=2026-05-31&kind=budget_overspent")
        #expect(notes.status == 200, "\(notes.text)")
        let note = try #require(notes.json.objects("notifications").first)
        #expect(note["id"] as? String == "budget_overspent:groceries:2026-05")
        #expect(note["date"] as? String == "2026-05-24")
        #expect((note["figures"] as? [String: String])?["spent"] == "105.50", "\(notes.text)")
        #expect((note["figures"] as? [String: String])?["over"] == "5.50")
        let unknown = try await service.send(.GET, "/ledgers/home/notifications?kind=nothing")
        #expect(unknown.status == 422 || unknown.status == 400, "\(unknown.text)")
        #expect(unknown.text.contains("nothing"))

        let json = try await service.send(.GET, "/ledgers/home/charts/budget?as_of=2026-05-31", headers: [("Accept", "application/json")])
        #expect(json.status == 200, "\(json.text)")
        #expect(json.headers.first(name: "Content-Type") == "application/json")
        #expect(json.text.contains(#""series":[{"name":"Spent","values":["105.50"]},{"name":"Maximum","values":["100.00"]}]"#), "\(json.text)")
        let svg = try await service.send(.GET, "/ledgers/home/charts/budget?as_of=2026-05-31", headers: [("Accept", "text/html;q=0.9, image/svg+xml")])
        #expect(svg.status == 200, "\(svg.text)")
        #expect(svg.headers.first(name: "Content-Type")?.hasPrefix("image/svg+xml") == true)
        let parser = XMLParser(data: Data(svg.body))
        #expect(parser.parse(), "the SVG is well-formed")
        #expect(svg.text.contains(#"data-series="Spent" data-label="Groceries" data-value="105.50""#))
        #expect(try await service.send(.GET, "/ledgers/home/charts/budget", headers: [("Accept", "text/html")]).status == 406)
        #expect(try await service.send(.GET, "/ledgers/home/charts/pie").status == 404)
        #expect(try await service.send(.GET, "/ledgers/home/charts/what-if").status == 422)
        #expect(try await service.send(.GET, "/ledgers/home/charts/what-if?goal=12.345").status == 400)
        try await service.stopAndRemove()
    }

    /// A day `days` from today in UTC (the ledger's time zone), as YYYY-MM-DD.
    private func day(_ days: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: calendar.date(byAdding: .day, value: days, to: Date())!)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    @Test func aBankConsentIsGivenWithTheConnectionAndRenewedOverHTTP() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("home")
        let connected = try await service.command("/ledgers/home/banks", #"{"id":"chase","name":"Chase","consent_expires":"\#(day(10))"}"#)
        #expect(connected.status == 201, "\(connected.text)")
        #expect(connected.json.objects("events").map { $0["type"] as? String } == ["bank_connected", "bank_consent_granted"])
        let ahead = try await service.send(.GET, "/ledgers/home/notifications?kind=bank_consent_expiring&as_of=\(day(3))")
        #expect(ahead.json.objects("notifications").map { $0["id"] as? String } == ["bank_consent_expiring:chase:\(day(10))"], "\(ahead.text)")
        let renewed = try await service.command("/ledgers/home/banks/chase/consent", #"{"expires_on":"\#(day(60))"}"#)
        #expect(renewed.status == 201, "\(renewed.text)")
        #expect(try await service.send(.GET, "/ledgers/home/notifications?kind=bank_consent_expiring&as_of=\(day(30))").json.objects("notifications").isEmpty,
                "renewed before the window opened")
        let late = try await service.command("/ledgers/home/banks/chase/consent", #"{"expires_on":"\#(day(-1))"}"#)
        #expect(late.status == 422 || late.status == 400, "\(late.text)")
        #expect(late.text.contains("before today"))
        #expect(try await service.command("/ledgers/home/banks/chase/consent", #"{"expires_on":"soon"}"#).code == "invalid_field")
        #expect(try await service.command("/ledgers/home/banks/wells/consent", #"{"expires_on":"\#(day(30))"}"#).status == 404)
        try await service.stopAndRemove()
    }
}
