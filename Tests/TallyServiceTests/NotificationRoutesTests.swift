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
}
