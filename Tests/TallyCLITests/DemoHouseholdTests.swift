import Foundation
import Testing
@testable import TallyCLI
@testable import Tally
import TallyTestSupport
import TallyLog

/// The demo household lives its tour through the Ledger's commands: every product's rules
/// run where they live, the books balance, and the same seed gives the same tour.
@Suite struct DemoHouseholdTests {
    private let firstMonth = month("2024-01")

    /// A household living `months` months in a new ledger at `root`, left open for checks.
    private func live(_ household: DemoHousehold, at root: String) throws -> (Ledger, DemoActivity) {
        let clock = DemoClock(household.createdAt(try LedgerCalendar(timeZoneIdentifier: DemoHousehold.timeZone)))
        let ledger = try Ledger.create(at: root, name: DemoHousehold.ledgerName, baseCurrency: DemoHousehold.baseCurrency,
                                       timeZone: DemoHousehold.timeZone, options: Ledger.Options(clock: clock.function, syncMode: .none, features: standardFeatures))
        return (ledger, try household.live(in: ledger, clock: clock))
    }

    @Test func fourMonthsOfAHouseholdRunEveryProductThroughItsCommandsAndTheBooksBalance() throws {
        try withTemporaryStore { root in
            let (ledger, activity) = try live(DemoHousehold(seed: 42, firstMonth: firstMonth, monthCount: 4), at: root)
            defer { try? ledger.close() }
            for type in [
                "deposit_split", "round_up_applied", "automation_paused", "automation_resumed", "card_frozen", "withdrawal_made",
                "recurring_occurrence_generated", "budget_set", "pot_funded", "transaction_amended", "transaction_deleted",
                "transaction_recategorised", "reference_balance_set", "envelope_created", "transfer_made", "challenge_step_completed",
                "price_quoted", "fx_rate_set", "position_set", "valuation_recorded", "reminder_set", "balance_asserted",
            ] {
                #expect(activity.eventsByType[type, default: 0] > 0, "no \(type) in the tour")
            }
            #expect(activity.refusals["card frozen"] ?? 0 >= 1, "the purchase on the lost card was not refused")
            #expect(activity.refusals["insufficient funds"] ?? 0 >= 1, "the withdrawal larger than Spend was not refused")
            #expect(activity.repeatsIgnored >= 1, "a bank transaction sent twice was recorded twice")
            // Every deposit was split by the ledger, each split naming its deposit.
            let splits = try ledger.wealthHistory(account: DemoHousehold.wealthAccount, filter: .all, page: 1, pageSize: 500).entries.filter { $0.kind == .split }
            #expect(splits.count == activity.eventsByType["deposit_received"])
            #expect(splits.allSatisfy { $0.cause != nil })
            try ledger.expectConsistent()
        }
    }

    @Test func theSameSeedGivesTheSameLogAndAnswersAndAnotherSeedOthers() throws {
        let household = DemoHousehold(seed: 42, firstMonth: firstMonth, monthCount: 3)
        let first = try withTemporaryStore { try DemoRunner.run(at: $0, household: household) }
        let second = try withTemporaryStore { try DemoRunner.run(at: $0, household: household) }
        let other = try withTemporaryStore { try DemoRunner.run(at: $0, household: DemoHousehold(seed: 7, firstMonth: firstMonth, monthCount: 3)) }
        #expect(first.verification.isIntact)
        #expect(first.verification.log.head == second.verification.log.head, "seed 42 recorded two different logs")
        #expect(first.dashboard == second.dashboard, "seed 42 gave two different dashboards")
        #expect(first.activity == second.activity)
        #expect(first.statistics.bytesOnDisk == second.statistics.bytesOnDisk)
        #expect(first.verification.log.head != other.verification.log.head, "seeds 42 and 7 recorded the same log")
        #expect(first.dashboard != other.dashboard)
    }

    @Test func thePastDateAsKnownBeforeTheCorrectionDoesNotSeeIt() throws {
        // Four months: the tour passes a quarter end, where the household asserts balances.
        let household = DemoHousehold(seed: 42, firstMonth: firstMonth, monthCount: 4)
        let summary = try withTemporaryStore { try DemoRunner.run(at: $0, household: household) }
        let dashboard = summary.dashboard
        #expect(dashboard.pastDate == household.correctedMonth.lastDay)
        #expect(dashboard.knownBefore < dashboard.correctionRecordedAt)
        // The late appraisal raised the home by 6,500.00 at the end of the corrected month.
        #expect(try dashboard.pastNetWorth.netWorth.subtracting(dashboard.pastNetWorthKnownBefore.netWorth) == usd("6500.00"))
        // The dinner amended from 184.00 to 148.00: 36.00 less spent on dining out then.
        func diningOut(_ balances: [AccountBalance]) -> Money? { balances.first { $0.account == "Expenses:Dining Out" }?.amount }
        let now = try #require(diningOut(dashboard.pastBalances))
        let before = try #require(diningOut(dashboard.pastBalancesKnownBefore))
        #expect(try before.subtracting(now) == usd("36.00"))
        // The audit shows the first version, its reversal and the new version.
        #expect(dashboard.amendmentAudit.map(\.amount) == [usd("184.00"), usd("-184.00"), usd("148.00")])
        #expect(summary.verification.readModels?.assertionsChecked ?? 0 > 0)
    }
}
