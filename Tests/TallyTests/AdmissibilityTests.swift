import Foundation
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Events that arrive already decided (`append`, NDJSON imports) pass the invariants the
/// commands keep, at their position in the log, and their idempotency keys are honoured.
@Suite struct AdmissibilityTests {
    static let start = "2026-05-01T09:00:00Z"

    private func deposit(_ amount: String, key: String? = nil, at clock: ManualClock) -> NewEvent {
        NewEvent(effectiveAt: clock.now, idempotencyKey: key, body: EventBody(
            DepositReceived(account: "main", amount: usd(amount), source: .bankTransfer)))
    }

    private func split(_ spend: String, _ invest: String, of position: Int, at clock: ManualClock) -> NewEvent {
        NewEvent(effectiveAt: clock.now, cause: .earlierInBatch(position), body: EventBody(DepositSplit(
            account: "main", spend: usd(spend), invest: usd(invest), spendWeight: 70, investWeight: 30)))
    }

    private func expectRefused(
        _ events: [NewEvent], _ code: LedgerError.Code, mentioning text: String, ledger: Ledger,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let head = ledger.head
        #expect(sourceLocation: sourceLocation) { try ledger.appendEvents(events) } throws: { error in
            guard let error = error as? LedgerError else { return false }
            return error.code == code && error.message.contains(text)
        }
        #expect(ledger.head == head, "nothing appended", sourceLocation: sourceLocation)
    }

    @Test func aNegativeDepositIsRefused() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            try expectRefused([deposit("-5.00", at: clock)], .invalidArgument, mentioning: "event 1 (deposit_received)", ledger: ledger)
        }
    }

    @Test func aWithdrawalThatOverdrawsSpendIsRefusedAtItsPosition() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            let withdrawal = NewEvent(effectiveAt: clock.now, body: EventBody(WithdrawalMade(account: "main", amount: usd("1000000.00"))))
            try expectRefused([deposit("100.00", at: clock), split("70.00", "30.00", of: 0, at: clock), withdrawal],
                              .insufficientFunds, mentioning: "event 3 (withdrawal_made)", ledger: ledger)
            // Within what Spend holds, the same file is admissible: later events see earlier ones.
            let small = NewEvent(effectiveAt: clock.now, body: EventBody(WithdrawalMade(account: "main", amount: usd("70.00"))))
            try ledger.appendEvents([deposit("100.00", at: clock), split("70.00", "30.00", of: 0, at: clock), small])
            try ledger.expectConsistent()
        }
    }

    @Test func aPotEventForAPotThatDoesNotExistIsRefused() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            let withdrawn = NewEvent(effectiveAt: clock.now, body: EventBody(PotWithdrawn(potId: "holiday", amount: usd("5.00"))))
            try expectRefused([withdrawn], .notFound, mentioning: "no pot 'holiday'", ledger: ledger)
        }
    }

    @Test func aSplitRuleNoCommandWouldSetIsRefused() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            for (spend, invest) in [(Int64(0), Int64(0)), (-1, 100), (70, 1_000_001)] {
                let rule = NewEvent(effectiveAt: clock.now, body: EventBody(SplitRuleSet(account: "main", spendWeight: spend, investWeight: invest)))
                try expectRefused([rule], .invalidArgument, mentioning: "event 1 (split_rule_set)", ledger: ledger)
            }
            try ledger.appendEvents([NewEvent(effectiveAt: clock.now, body: EventBody(SplitRuleSet(account: "main", spendWeight: 50, investWeight: 50)))])
            try ledger.expectConsistent()
        }
    }

    @Test func aPotDeletionMustReturnWhatThePotHolds() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            try ledger.setReferenceBalance(amount: usd("500.00"))
            try ledger.createPot(id: "holiday", target: usd("300.00"))
            try ledger.addToPot(id: "holiday", amount: usd("120.00"))
            for returned in ["100.00", "120.01", "0.00"] {
                let deleted = NewEvent(effectiveAt: clock.now, body: EventBody(PotDeleted(potId: "holiday", returned: usd(returned))))
                try expectRefused([deleted], .invalidArgument, mentioning: "what pot 'holiday' holds", ledger: ledger)
            }
            try ledger.appendEvents([NewEvent(effectiveAt: clock.now, body: EventBody(PotDeleted(potId: "holiday", returned: usd("120.00"))))])
            #expect(try ledger.pots().isEmpty)
            try ledger.expectConsistent()
        }
    }

    @Test func aSecondLedgerCreatedIsRefused() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            let created = NewEvent(effectiveAt: clock.now, body: EventBody(LedgerCreated(name: "Again", baseCurrency: .usd, timeZone: "UTC")))
            try expectRefused([created], .notAllowed, mentioning: "created once", ledger: ledger)
        }
    }

    @Test func aCauseThatIsNotAnEarlierEventIsRefused() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            var orphan = split("0.70", "0.30", of: 0, at: clock)
            orphan.cause = .sequence(99)
            try expectRefused([orphan], .invalidArgument, mentioning: "not an earlier event", ledger: ledger)
        }
    }

    @Test func appendingTheSameKeyedFileTwiceRecordsItOnceAndAChangedEventIsAConflict() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            let file = [deposit("100.00", key: "bank:1", at: clock), split("70.00", "30.00", of: 0, at: clock),
                        deposit("10.00", key: "bank:2", at: clock), split("7.00", "3.00", of: 2, at: clock)]
            let first = try ledger.appendEvents(file)
            #expect(first.events.count == 4)
            let head = ledger.head
            // The splits carry no key: a repeat of their deposits says the file ran before.
            let again = try ledger.appendEvents([file[0], file[2]])
            #expect(again.events.isEmpty)
            #expect(ledger.head == head)
            try expectRefused([deposit("100.01", key: "bank:1", at: clock)], .idempotencyConflict, mentioning: "bank:1", ledger: ledger)
            try ledger.expectConsistent()
        }
    }

    /// A file imported in batches is rehearsed whole first: an event that is not admissible
    /// in its third batch refuses the file before the first batch, naming its line.
    @Test func anNDJSONImportIsRefusedWholeWhenALaterBatchHoldsAnInadmissibleEvent() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T09:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            var lines: [String] = []
            for index in 0..<25 {
                lines.append(try EventJSON.encode(Event(sequence: UInt64(index + 2), recordedAt: clock.now, effectiveAt: clock.now, cause: nil,
                                                    idempotencyKey: "d-\(index)", body: deposit("1.00", at: clock).body)))
            }
            // Line 23 withdraws more than the wallet will hold by then.
            lines[22] = try EventJSON.encode(Event(sequence: 24, recordedAt: clock.now, effectiveAt: clock.now, cause: nil, idempotencyKey: nil,
                                               body: EventBody(WithdrawalMade(account: "main", amount: usd("500.00")))))
            let path = root + ".ndjson"
            try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let head = ledger.head
            #expect { try ledger.importEvents(ndjsonAt: path, batchSize: 10) } throws: { error in
                (error as? LedgerError)?.message.contains("\(path):23 (withdrawal_made)") == true
            }
            #expect(ledger.head == head, "nothing was appended")
            #expect(try ledger.appendEvents(Array(repeating: deposit("1.00", at: clock), count: 3), batchSize: 2).count == 2)
        }
    }
}
