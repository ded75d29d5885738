import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

@Suite struct PotTests {
    @Test func theCurrentBalanceIsTheReferenceLessWhatThePotsHold() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.setReferenceBalance(amount: usd("1000.00"))
            try ledger.createPot(id: "holiday", name: "Holiday", target: usd("500.00"))
            try ledger.addToPot(id: "holiday", amount: usd("125.00"))
            let overview = try ledger.budgetOverview(month: month("2026-05"))
            #expect(overview.currentBalance == usd("875.00"))
            #expect(overview.heldInPots == usd("125.00"))
            // A reset names the bank balance, pots included.
            try ledger.setReferenceBalance(amount: usd("1100.00"))
            #expect(try ledger.budgetOverview(month: month("2026-05")).currentBalance == usd("975.00"))
            try ledger.expectConsistent()
        }
    }

    @Test func addingMoreThanTheCurrentBalanceIsRefused() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.setReferenceBalance(amount: usd("100.00"))
            try ledger.createPot(id: "car", target: usd("5000.00"))
            try expectRefusal(.insufficientFunds, by: ledger) { try ledger.addToPot(id: "car", amount: usd("100.01")) }
            try ledger.addToPot(id: "car", amount: usd("100.00"))
            #expect(try ledger.pot(id: "car")?.total == usd("100.00"))
            try expectRefusal(.insufficientFunds, by: ledger) { try ledger.addToPot(id: "car", amount: usd("0.01")) }
            try ledger.expectConsistent()
        }
    }

    @Test func withdrawingMoreThanThePotHoldsIsRefused() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.setReferenceBalance(amount: usd("300.00"))
            try ledger.createPot(id: "gifts", target: usd("200.00"))
            try ledger.addToPot(id: "gifts", amount: usd("80.00"))
            try expectRefusal(.insufficientFunds, by: ledger) { try ledger.withdrawFromPot(id: "gifts", amount: usd("80.01")) }
            try ledger.withdrawFromPot(id: "gifts", amount: usd("30.00"))
            #expect(try ledger.pot(id: "gifts")?.total == usd("50.00"))
            #expect(try ledger.budgetOverview(month: month("2026-05")).currentBalance == usd("250.00"))
            try ledger.expectConsistent()
        }
    }

    @Test func deletingAPotReturnsItsTotalToTheCurrentBalance() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.setReferenceBalance(amount: usd("400.00"))
            try ledger.createPot(id: "laptop", target: usd("1200.00"))
            try ledger.addToPot(id: "laptop", amount: usd("150.00"))
            let deleted = try ledger.deletePot(id: "laptop")
            guard let event = deleted.events.first?.body.as(PotDeleted.self) else {
                Issue.record("expected pot_deleted, got \(deleted.events.map(\.type.name))")
                return
            }
            #expect(event.returned == usd("150.00"))
            #expect(try ledger.pots().isEmpty)
            #expect(try ledger.budgetOverview(month: month("2026-05")).currentBalance == usd("400.00"))
            try expectRefusal(.notFound, by: ledger) { try ledger.addToPot(id: "laptop", amount: usd("1.00")) }
            try ledger.expectConsistent()
        }
    }

    @Test func progressIsAnExactFractionAndBasisPoints() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.setReferenceBalance(amount: usd("1000.00"))
            try ledger.createPot(id: "holiday", name: "Summer holiday", target: usd("500.00"))
            try ledger.addToPot(id: "holiday", amount: usd("125.00"))
            let pot = try #require(try ledger.pot(id: "holiday"))
            #expect(pot.name == "Summer holiday")
            #expect(pot.progress == (1, 4))
            #expect(pot.progressBasisPoints == 2_500)
            try ledger.createPot(id: "thirds", target: usd("3.00"))
            try ledger.addToPot(id: "thirds", amount: usd("1.00"))
            #expect(try ledger.pot(id: "thirds")?.progressBasisPoints == 3_333)  // rounded down, never up to the goal
            try ledger.expectConsistent()
        }
    }

    @Test func progressBasisPointsNeverOverflow() {
        // Every target from 1 minor unit against the extremes of a pot's total.
        for target: Int64 in [1, 2, 3, 7, 100, 9_999, Int64.max] {
            for total: Int64 in [0, 1, target, Int64.max] {
                let pot = Pot(id: "p", name: "p", target: Money(minorUnits: target, commodity: .usd), total: Money(minorUnits: total, commodity: .usd))
                let exact = Int128(total) * 10_000 / Int128(target)
                #expect(Int128(pot.progressBasisPoints) == min(exact, Int128(Int64.max)), "total \(total) target \(target)")
            }
        }
    }

    @Test func badPotCommandsAreRefused() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.createPot(id: "holiday", target: usd("100.00"))
            try expectRefusal(.alreadyExists, by: ledger) { try ledger.createPot(id: "holiday", target: usd("100.00")) }
            try expectRefusal(.invalidArgument, by: ledger) { try ledger.createPot(id: "zero", target: usd("0.00")) }
            try expectRefusal(.currencyMismatch, by: ledger) { try ledger.createPot(id: "pounds", target: gbp("10.00")) }
            try expectRefusal(.invalidArgument, by: ledger) { try ledger.addToPot(id: "holiday", amount: usd("-5.00")) }
            try expectRefusal(.notFound, by: ledger) { try ledger.withdrawFromPot(id: "nope", amount: usd("5.00")) }
            try ledger.expectConsistent()
        }
    }
}
