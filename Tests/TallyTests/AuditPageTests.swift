import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// `Ledger.auditPage`: an audit read a page at a time, by position, gives exactly the whole
/// audit (same entries, same running balances, same order), for accounts with several
/// currencies, backdated and same-instant changes, `from`/`through` windows and `knownAt`.
/// The targets the CLI names (`pot:`, `envelope:`, `asset:`, `liability:`) read the same way.
@Suite struct AuditPageTests {
    private func pages(_ ledger: Ledger, _ target: AuditTarget, from: LocalDate?, through: LocalDate?, knownAt: Instant?, limit: Int) throws -> [AuditEntry] {
        var entries: [AuditEntry] = []
        var page = try ledger.auditPage(target, from: from, through: through, knownAt: knownAt, limit: limit)
        entries += page.entries
        var guardCount = 0
        while let next = page.next {
            #expect(page.entries.count == limit, "a page before the last is full")
            page = try ledger.auditPage(target, from: from, through: through, knownAt: knownAt, after: next, limit: limit)
            entries += page.entries
            guardCount += 1
            if guardCount > 10_000 { Issue.record("paging does not end"); break }
        }
        return entries
    }

    @Test(arguments: [UInt64(0xA0D1_7001), 0xBEEF, 7])
    func pagingThroughAnAccountGivesTheWholeAuditExactly(seed: UInt64) throws {
        let seed = TestSeed.value(default: seed)
        try withTemporaryStore { root in
            var random = SplitMix64(seed: seed)
            let clock = ManualClock("2026-01-10T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            var recorded: [Instant] = []
            for step in 0..<400 {
                clock.advance(seconds: Int64.random(in: 1...20_000, using: &random))
                let commodity: Commodity = Bool.random(using: &random) ? .usd : .gbp
                // Backdated up to 20 days, often to the same instant as another change.
                let back = [0, 0, 3_600, 86_400, 86_400 * 7, 86_400 * 20].randomElement(using: &random)!
                let effective = Instant(microsecondsSinceEpoch: (clock.now.microsecondsSinceEpoch / 3_600_000_000 - Int64(back) / 3_600) * 3_600_000_000)
                let amount = Money(minorUnits: Int64.random(in: 100...90_000, using: &random), commodity: commodity)
                if step % 5 == 4 {
                    _ = try? ledger.purchase(account: "main", amount: Money(minorUnits: amount.minorUnits / 10, commodity: commodity), merchant: "Shop", effectiveAt: clock.now)
                } else {
                    try ledger.deposit(account: "main", amount: amount, effectiveAt: effective)
                }
                recorded.append(clock.now)
            }
            let account = LedgerAccounts.spend("main")
            let days = recorded.map { ledger.calendar.date(of: $0) }
            let windows: [(LocalDate?, LocalDate?)] = [(nil, nil), (days[100], nil), (nil, days[300]), (days[50], days[250])]
            for knownAt in TestSeed.knownAts(3, recorded: recorded, random: &random) {
                for (from, through) in windows {
                    let whole = try ledger.audit(account: account, from: from, through: through, knownAt: knownAt)
                    for limit in [1, 7, 50, 1_000] {
                        let paged = try pages(ledger, .account(account), from: from, through: through, knownAt: knownAt, limit: limit)
                        #expect(paged == whole, "seed \(seed): limit \(limit), from \(String(describing: from)), through \(String(describing: through)), known at \(String(describing: knownAt)): \(paged.count) paged, \(whole.count) whole")
                    }
                }
            }
        }
    }

    @Test func potsEnvelopesAssetsAndLiabilitiesPageAsTheyAuditWhole() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-25T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            try ledger.setReferenceBalance(amount: usd("5000.00"))
            try ledger.createPot(id: "holiday", target: usd("1500.00"))
            for amount in ["100.00", "250.00", "75.00", "30.00"] { try ledger.addToPot(id: "holiday", amount: usd(amount)) }
            try ledger.withdrawFromPot(id: "holiday", amount: usd("50.00"))
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("2000.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-03-01")))
            try ledger.createEnvelope("groceries", name: "Groceries", interval: .monthly, budgeted: usd("400.00"), startDate: day("2026-03-01"))
            for (index, amount) in ["-120.00", "-80.00", "-15.00"].enumerated() {
                try ledger.recordEnvelopeTransaction("shop-\(index)", account: "Assets:Bank", amount: usd(amount), envelope: "groceries", effectiveAt: ledger.calendar.startOfDay(day("2026-03-1\(index)")))
            }
            try ledger.addAsset(assetId: "flat", name: "Flat", category: .property, type: .realEstate, currency: .usd)
            for value in ["250000.00", "255000.00", "251000.00"] {
                clock.advance(seconds: 86_400)
                try ledger.recordValuation(itemKind: .asset, itemId: "flat", value: usd(value), source: .manual)
            }
            try ledger.addLiability(liabilityId: "mortgage", name: "Mortgage", category: .mortgage, currency: .usd)
            for value in ["180000.00", "179000.00"] {
                clock.advance(seconds: 86_400)
                try ledger.recordValuation(itemKind: .liability, itemId: "mortgage", value: usd(value), source: .manual)
            }
            for text in ["pot:holiday", "envelope:groceries", "asset:flat", "liability:mortgage"] {
                let target = try AuditTarget(parsing: text)
                #expect(target.description == text)
                let whole = try ledger.audit(target)
                #expect(whole.count >= 2, "\(text) has a history")
                for limit in [1, 2, 100] {
                    #expect(try pages(ledger, target, from: nil, through: nil, knownAt: nil, limit: limit) == whole, "\(text), limit \(limit)")
                }
            }
            #expect(try AuditTarget(parsing: "Assets:Bank") == .account("Assets:Bank"))
            #expect(throws: LedgerError.self) { try AuditTarget(parsing: "pot:") }
            #expect(throws: LedgerError.self) { try ledger.auditPage(.account(LedgerAccounts.spend("main")), limit: 0) }
        }
    }

    @Test(arguments: [UInt64(0x5A1E_A0D1), 0xC0FFEE])
    func pagingThroughAnAssetsValueGivesItsWholeAuditExactly(seed: UInt64) throws {
        let seed = TestSeed.value(default: seed)
        try withTemporaryStore { root in
            var random = SplitMix64(seed: seed)
            let clock = ManualClock("2026-01-10T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            try ledger.addAsset(assetId: "flat", name: "Flat", category: .property, type: .realEstate, currency: .usd,
                                effectiveAt: ledger.calendar.startOfDay(day("2025-11-01")))
            var recorded: [Instant] = []
            for _ in 0..<120 {
                clock.advance(seconds: Int64.random(in: 1...50_000, using: &random))
                // Backdated up to 30 days, often to the same hour as another; a value repeated
                // now and then (no change to report).
                let back = [0, 0, 3_600, 86_400, 86_400 * 30].randomElement(using: &random)!
                let effective = Instant(microsecondsSinceEpoch: (clock.now.microsecondsSinceEpoch / 3_600_000_000 - Int64(back) / 3_600) * 3_600_000_000)
                let value = Money(minorUnits: Int64.random(in: 1...6, using: &random) * 5_000_000, commodity: .usd)
                try ledger.recordValuation(itemKind: .asset, itemId: "flat", value: value, source: .manual, effectiveAt: effective)
                recorded.append(clock.now)
            }
            clock.advance(seconds: 86_400)
            try ledger.removeAsset("flat")
            recorded.append(clock.now)
            let days = recorded.map { ledger.calendar.date(of: $0) }
            let windows: [(LocalDate?, LocalDate?)] = [(nil, nil), (days[40], nil), (nil, days[80]), (days[20], days[90])]
            for knownAt in TestSeed.knownAts(3, recorded: recorded, random: &random) {
                for (from, through) in windows {
                    let whole = try ledger.auditValue(of: .asset, "flat", from: from, through: through, knownAt: knownAt)
                    for limit in [1, 3, 1_000] {
                        let paged = try pages(ledger, .asset("flat"), from: from, through: through, knownAt: knownAt, limit: limit)
                        #expect(paged == whole, "seed \(seed): limit \(limit), from \(String(describing: from)), through \(String(describing: through)), known at \(String(describing: knownAt)): \(paged.count) paged, \(whole.count) whole")
                    }
                }
            }
        }
    }

    @Test(arguments: [UInt64(0xE0E1_0DE5), 0x5EED])
    func pagingThroughAnEnvelopeGivesItsWholeAuditExactly(seed: UInt64) throws {
        let seed = TestSeed.value(default: seed)
        try withTemporaryStore { root in
            var random = SplitMix64(seed: seed)
            let clock = ManualClock("2025-12-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("50000.00"))
            try ledger.createEnvelope("food", name: "Food", interval: .monthly, budgeted: usd("400.00"), startDate: day("2025-12-01"))
            var recorded: [Instant] = []
            for step in 0..<120 {
                clock.advance(seconds: Int64.random(in: 3_600...(3 * 86_400), using: &random))
                // Backdated up to 9 days (never before the account), often within the same day.
                let back = step < 10 ? 0 : [0, 0, 3_600, 7_200, 86_400, 86_400 * 9].randomElement(using: &random)!
                let effective = Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch - Int64(back) * 1_000_000)
                let cents = Int64.random(in: 500...8_000, using: &random)
                switch Int.random(in: 0..<20, using: &random) {
                case 0: try ledger.fundEnvelope("food", amount: Money(minorUnits: cents, commodity: .usd), effectiveAt: effective)
                case 1: try ledger.changeEnvelopeBudget("food", budgeted: Money(minorUnits: cents * 10, commodity: .usd), effectiveAt: clock.now)
                case 2: try ledger.setEnvelopeRollover("food", policy: [.reset, .carryForward, .takeFromToAssign].randomElement(using: &random)!, effectiveAt: clock.now)
                default:
                    try ledger.recordEnvelopeTransaction("t\(step)", account: "Assets:Bank", amount: Money(minorUnits: -cents, commodity: .usd),
                                                         envelope: "food", effectiveAt: effective)
                }
                recorded.append(clock.now)
            }
            let days = recorded.map { ledger.calendar.date(of: $0) }
            let windows: [(LocalDate?, LocalDate?)] = [(nil, nil), (days[50], nil), (nil, days[90]), (days[30], days[100])]
            for knownAt in TestSeed.knownAts(3, recorded: recorded, random: &random) {
                for (from, through) in windows {
                    let whole = try ledger.envelopeAudit("food", from: from, through: through, knownAt: knownAt)
                    if knownAt == nil, from == nil { #expect(whole.count > 80, "seed \(seed): a history to page through, \(whole.count) changes") }
                    for limit in [1, 7, 1_000] {
                        let paged = try pages(ledger, .envelope("food"), from: from, through: through, knownAt: knownAt, limit: limit)
                        #expect(paged == whole, "seed \(seed): limit \(limit), from \(String(describing: from)), through \(String(describing: through)), known at \(String(describing: knownAt)): \(paged.count) paged, \(whole.count) whole")
                    }
                }
            }
        }
    }
}
