import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 15, missing 5: settings are events with a history, read as of a date and as known
/// at a time; commands that read them use the value in force at the date asked about.
@Suite struct LedgerSettingsTests {
    private func at(_ text: String) -> Instant { try! Instant(parsing: text) }

    @Test func aNewLedgerListsEverySettingWithItsDefaultsMarked() throws {
        try withBudgetLedger { ledger, _ in
            let settings = try ledger.settings(asOf: nil)
            #expect(settings.values.map(\.setting) == LedgerSetting.allCases)
            #expect(settings.dueSoonDays == 5 && settings.pageSize == 10 && settings.priceStalenessSeconds == 900)
            let defaults = settings.values.filter(\.isDefault).map(\.setting)
            #expect(defaults == [.priceStalenessSeconds, .dueSoonDays, .pageSize])
            #expect(settings.timeZone == "America/New_York" && settings.baseCurrency == .usd)
        }
    }

    @Test func iWidenTheDueSoonWindowFromTheFirstOfMayAndAprilKeepsFiveDays() throws {
        try withBudgetLedger { ledger, clock in
            try ledger.defineRecurring(id: "phone", payee: "Phone Co", category: .bills, amount: usd("-35.00"),
                                       dayOfMonth: 23, startMonth: month("2026-03"))
            clock.advance(seconds: 60)
            try ledger.setDueSoonDays(7, effectiveAt: ledger.calendar.startOfDay(day("2026-05-01")))
            // 16 May: the 23rd is 7 days away: due soon under the 7-day window in force then.
            #expect(try ledger.recurringStatus(month: month("2026-05"), today: day("2026-05-16")).items.first?.state == .dueSoon)
            // 16 April: the 23rd is 7 days away, but the window then was 5 days.
            #expect(try ledger.recurringStatus(month: month("2026-04"), today: day("2026-04-16")).items.first?.state == .upcoming)
            // As known before the change was recorded, May used 5 days too.
            clock.advance(seconds: 60)
            let before = Instant(microsecondsSinceEpoch: try ledger.settings().values.first { $0.setting == .dueSoonDays }!.recordedAt!.microsecondsSinceEpoch - 1)
            #expect(try ledger.recurringStatus(month: month("2026-05"), today: day("2026-05-16"), knownAt: before).items.first?.state == .upcoming)
            // A window given by the caller wins.
            #expect(try ledger.recurringStatus(month: month("2026-04"), today: day("2026-04-16"), dueSoonDays: 7).items.first?.state == .dueSoon)
        }
    }

    @Test func aBackdatedChangeHoldsUntilTheNextChangeByDateAndNeverReplacesALaterOne() throws {
        try withBudgetLedger { ledger, clock in
            try ledger.setPageSize(25, effectiveAt: at("2026-05-10T00:00:00Z"))
            clock.advance(seconds: 60)
            try ledger.setPageSize(40, effectiveAt: at("2026-05-01T00:00:00Z"))
            #expect(try ledger.settings(asOf: at("2026-04-30T00:00:00Z")).pageSize == 10)
            #expect(try ledger.settings(asOf: at("2026-05-05T00:00:00Z")).pageSize == 40)
            let may15 = try ledger.settings(asOf: at("2026-05-15T00:00:00Z"))
            #expect(may15.pageSize == 25, "the backdated 40 does not replace the 25 in force from the 10th")
            let value = try #require(may15.values.first { $0.setting == .pageSize })
            #expect(value.since == at("2026-05-10T00:00:00Z") && !value.isDefault)
            #expect(try ledger.settings().pageSize == 25)
        }
    }

    @Test func settingTheValueInForceRecordsNothingAndBadValuesAreRefused() throws {
        try withBudgetLedger { ledger, _ in
            #expect(try ledger.setDueSoonDays(5).events.isEmpty, "5 is in force (the default)")
            #expect(try ledger.setPageSize(10).events.isEmpty)
            for (attempt, message) in [({ try ledger.setDueSoonDays(-1) }, "due-soon"), ({ try ledger.setPageSize(0) }, "page size"),
                                       ({ try ledger.setPageSize(501) }, "page size")] as [(() throws -> Ledger.CommandResult, String)] {
                #expect { _ = try attempt() } throws: { ($0 as? LedgerError)?.message.contains(message) == true }
            }
            try ledger.expectConsistent()
        }
    }

    @Test func theSettingsReadModelRebuildsToTheSameHistory() throws {
        try withBudgetLedger { ledger, clock in
            try ledger.setDueSoonDays(9, effectiveAt: at("2026-05-02T00:00:00Z"))
            clock.advance(seconds: 5)
            try ledger.setDueSoonDays(3, effectiveAt: at("2026-04-02T00:00:00Z"))
            let before = [try ledger.settings(asOf: at("2026-04-10T00:00:00Z")), try ledger.settings(asOf: at("2026-05-10T00:00:00Z"))]
            try ledger.rebuild()
            let after = [try ledger.settings(asOf: at("2026-04-10T00:00:00Z")), try ledger.settings(asOf: at("2026-05-10T00:00:00Z"))]
            #expect(before == after)
            #expect(after.map(\.dueSoonDays) == [3, 9])
        }
    }
}
