import Foundation
import Testing
@testable import TallyService

/// The dashboard page (`GET /ledgers/{ledger}/dashboard`, docs/service.md) in a real headless
/// Chromium driven through chromedriver: a household seeded over HTTP, the page loaded
/// without a key, a wrong key refused, the read key typed and submitted from the keyboard,
/// the figures compared with what the API answers, a backdated deposit shown live through
/// the event stream, and a screenshot decoded and looked at. One browser start for all of it.
@Suite struct DashboardBrowserTests {
    /// A decimal string as the page writes it: thousands grouped, the currency after it.
    static func shown(_ decimal: String, _ currency: String) -> String {
        let negative = decimal.hasPrefix("-")
        let digits = negative ? String(decimal.dropFirst()) : decimal
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        var whole = String(parts[0])
        var grouped = ""
        while whole.count > 3 {
            grouped = "," + whole.suffix(3) + grouped
            whole = String(whole.dropLast(3))
        }
        return (negative ? "−" : "") + whole + grouped + (parts.count > 1 ? "." + parts[1] : "") + " " + currency
    }

    @Test func theDashboardShowsTheHouseholdAndFollowsItLive() async throws {
        let service = try await ServiceHarness.start()
        let directory = service.directory + "-browser"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The household: a wealth account with a deposit, a budget overspent, an envelope, a house and a mortgage.
        try await service.createLedger("home")
        for (path, body) in [
            ("/ledgers/home/wealth/main/deposits", #"{"amount":"1200.00","effective_at":"2026-05-03"}"#),
            ("/ledgers/home/budgets", #"{"category":"groceries","month":"2026-05","maximum":"100.00"}"#),
            ("/ledgers/home/transactions", #"{"payee":"Market","category":"groceries","amount":"-60.00","date":"2026-05-10"}"#),
            ("/ledgers/home/transactions", #"{"payee":"Grocer","category":"groceries","amount":"-45.50","date":"2026-05-24"}"#),
            ("/ledgers/home/envelope-accounts", #"{"account":"Assets:Bank","currency":"USD","opening_balance":"900.00","effective_at":"2026-05-01"}"#),
            ("/ledgers/home/envelopes", #"{"id":"food","name":"Food","interval":"monthly","budgeted":"400.00","start_date":"2026-05-01"}"#),
            ("/ledgers/home/envelope-transactions", #"{"id":"t1","account":"Assets:Bank","amount":"-40.00","envelope":"food","effective_at":"2026-05-05"}"#),
            ("/ledgers/home/assets", #"{"id":"house","name":"House","category":"property","type":"real_estate","currency":"USD","effective_at":"2026-01-01"}"#),
            ("/ledgers/home/assets/house/valuations", #"{"value":"250000.00","effective_at":"2026-02-01"}"#),
            ("/ledgers/home/liabilities", #"{"id":"mortgage","name":"Mortgage","category":"mortgage","currency":"USD","effective_at":"2026-01-01"}"#),
            ("/ledgers/home/liabilities/mortgage/valuations", #"{"value":"180000.00","effective_at":"2026-02-01"}"#),
        ] {
            let reply = try await service.command(path, body)
            #expect(reply.status == 201, "\(path): \(reply.text)")
        }
        let key = try await service.createKey("home", scopes: ["read"])
        let asOf = "2026-05-31"
        func api(_ path: String) async throws -> [String: Any] {
            let reply = try await service.send(.GET, "/ledgers/home\(path)\(path.contains("?") ? "&" : "?")as_of=\(asOf)", key: key)
            guard reply.status == 200 else { throw WebDriver.Failure("\(path): \(reply.status) \(reply.text)") }
            return reply.json
        }
        let netWorth = try await api("/net-worth")
        let budget = try await api("/charts/budget")
        let notes = try await api("/notifications").objects("notifications")
        #expect(notes.contains { $0["kind"] as? String == "budget_overspent" }, "the household has something to tell")

        // Serving the page needs no key and holds no data.
        let page = try await service.send(.GET, "/ledgers/home/dashboard", key: nil)
        #expect(page.status == 200)
        #expect(page.headers.first(name: "Content-Type") == "text/html; charset=utf-8")
        #expect(page.headers.first(name: "Content-Security-Policy")?.contains("default-src 'none'") == true)
        #expect(!page.text.contains("250,000") && !page.text.contains("250000"))
        #expect(!page.text.contains("http://") && !page.text.contains("https://"), "no external asset")
        #expect(try await service.send(.GET, "/ledgers/Not_A_Ledger/dashboard", key: nil).status == 404)

        let browser = try await WebDriver.start(width: 1100, height: 1500, directory: directory)
        do {
            try await browser.navigate("http://127.0.0.1:\(service.port)/ledgers/home/dashboard?as_of=\(asOf)")
            #expect(try await browser.title == "Tally dashboard: home")
            #expect(try await browser.run("return document.body.dataset.state;") as? String == "locked")
            // Every form control has a label; the key field is focused to type into at once.
            #expect(try await browser.run("return Array.from(document.querySelectorAll('input')).filter(i => !i.labels || !i.labels.length).length;") as? Int == 0)
            #expect(try await browser.run("return document.activeElement && document.activeElement.id;") as? String == "key")

            try await browser.type("tally_wrong_key\u{E007}", into: "#key")
            try await browser.wait("the wrong key refused", "return document.getElementById('key-error').textContent.includes('refused');")
            #expect(try await browser.run("return document.body.dataset.state;") as? String == "locked")

            try await browser.type(key + "\u{E007}", into: "#key")
            try await browser.wait("the figures", "return document.body.dataset.state === 'loaded';")
            #expect(try await browser.title == "Tally dashboard: Household home")
            #expect(try await browser.run("return location.href.includes(arguments[0]);", [key]) as? Bool == false, "the key is never in the URL")
            #expect(try await browser.run("return document.activeElement && document.activeElement.id;") as? String == "networth-title")

            let currency = try #require(netWorth["base_currency"] as? String)
            let figure = Self.shown(try #require(netWorth["net_worth"] as? String), currency)
            #expect(try await browser.text("#net-worth") == figure)
            #expect(try await browser.run("return document.querySelectorAll('#net-worth-chart svg circle.mark, #net-worth-chart svg rect.mark').length;") as? Int ?? 0 > 0, "the net worth chart is drawn")
            let labels = try #require(budget["labels"] as? [String])
            let series = try #require(budget["series"] as? [[String: Any]])
            let spent = try #require(series.first { $0["name"] as? String == "Spent" }?["values"] as? [String])
            let budgetText = try await browser.text("#budget-table tbody")
            for (label, value) in zip(labels, spent) {
                #expect(budgetText.contains(label) && budgetText.contains(Self.shown(value, currency)), "\(label) \(value) in \(budgetText)")
            }
            #expect(try await browser.text("#budget-title").contains("2026-05"))
            let notificationText = try await browser.text("#notifications")
            for note in notes.suffix(10) {
                #expect(notificationText.contains(note["message"] as? String ?? "?"), "\(note["id"] ?? "?") in \(notificationText)")
            }
            #expect(try await browser.text("#envelopes-table tbody").contains("Food"))
            let wealth = try await api("/wealth/main")
            let total = try #require((wealth["balances"] as? [[String: Any]])?.first?["total"] as? String)
            #expect(try await browser.text("#wealth").contains(Self.shown(total, currency)))

            // Live: a deposit backdated into the month shows without reloading the page.
            let head = try await browser.run("return document.body.dataset.head;") as? String
            let deposit = try await service.command("/ledgers/home/wealth/main/deposits", #"{"amount":"300.00","effective_at":"2026-05-20"}"#)
            #expect(deposit.status == 201, "\(deposit.text)")
            let newTotal = try #require(((try await api("/wealth/main"))["balances"] as? [[String: Any]])?.first?["total"] as? String)
            #expect(newTotal != total)
            try await browser.wait("the live update", "return document.body.dataset.head !== arguments[0] && document.getElementById('wealth').textContent.includes(arguments[1]);",
                                   [head ?? "", Self.shown(newTotal, currency)])
            let newNotes = try await api("/notifications").objects("notifications")
            let newest = try #require(newNotes.last { $0["kind"] as? String == "deposit_received" }?["message"] as? String)
            #expect(try await browser.text("#notifications").contains(newest))
            #expect(try await browser.text("#status").contains("Updated after event"))

            // What the browser drew: the viewport's size, a white page with dark text and the chart's blue.
            let size = try #require(try await browser.run("return [window.innerWidth, window.innerHeight];") as? [Int])
            let image = try PNGImage(try await browser.screenshot())
            #expect([image.width, image.height] == size)
            let histogram = image.histogram
            #expect(histogram.count > 16, "a blank screenshot has few colours: \(histogram.count)")
            let white = histogram[0xFFFFFF, default: 0]
            #expect(white > image.pixels.count / 2 && white < image.pixels.count, "mostly the white page, not only")
            #expect(histogram[0x1B1B1B, default: 0] > 0, "the page's text colour")
            #expect(histogram[0x1F5F99, default: 0] > 0, "the net worth chart's series colour (SVGChart.colours[0])")
        } catch {
            await browser.close()
            try await service.stopAndRemove()
            throw error
        }
        await browser.close()
        try await service.stopAndRemove()
    }
}
