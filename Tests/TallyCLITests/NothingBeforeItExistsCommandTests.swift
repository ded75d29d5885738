import Foundation
import Testing

/// Issue 32, rule 3: nothing happens before it exists. A household opens its bank account
/// on the 1st of March, starts a groceries envelope on the 10th, a savings challenge on the
/// 15th and adds its flat to net worth on the 20th; a record dated before any of them is
/// refused with a message naming both days, records nothing, and the same record on or
/// after the day is taken.
@Suite struct NothingBeforeItExistsCommandTests {
    @Test func recordsDatedBeforeTheirAccountEnvelopeChallengeOrAssetAreRefusedNamingBothDays() throws {
        let store = try BudgetStore()
        try store.run(["envelope", "account-open", "Assets:Bank", "--opening", "1000.00", "--date", "2026-03-01"])
        try store.run(["envelope", "account-open", "Assets:Savings", "--opening", "0.00", "--date", "2026-03-01"])
        try store.run(["envelope", "create", "groceries", "--budget", "300.00", "--start", "2026-03-10"])
        try store.run(["challenge", "start", "save", "--template", "52_week", "--unit", "1.00", "--account", "Assets:Savings", "--date", "2026-03-15"])
        try store.run(["asset", "add", "flat", "--name", "Flat", "--category", "property", "--type", "real_estate", "--currency", "USD", "--date", "2026-03-20"])

        try store.expectRefused(["envelope", "record", "t1", "--account", "Assets:Bank", "--amount", "-12.00", "--date", "2026-02-28"],
                                "account 'Assets:Bank' opened on 2026-03-01; a record dated 2026-02-28 comes before it")
        try store.expectRefused(["envelope", "transfer", "m1", "--from", "Assets:Bank", "--to", "Assets:Savings", "--amount", "5.00", "--date", "2026-02-20"],
                                "opened on 2026-03-01; a record dated 2026-02-20 comes before it")
        try store.expectRefused(["envelope", "record", "t2", "--account", "Assets:Bank", "--amount", "-12.00", "--envelope", "groceries", "--date", "2026-03-09"],
                                "envelope 'groceries' starts on 2026-03-10; a record dated 2026-03-09 comes before it")
        try store.expectRefused(["envelope", "fund", "groceries", "--amount", "20.00", "--date", "2026-03-05"],
                                "envelope 'groceries' starts on 2026-03-10; a record dated 2026-03-05 comes before it")
        try store.expectRefused(["envelope", "budget", "groceries", "--budget", "350.00", "--from", "2026-03-01"],
                                "envelope 'groceries' starts on 2026-03-10; a record dated 2026-03-01 comes before it")
        try store.expectRefused(["challenge", "step", "save", "--from", "Assets:Bank", "--date", "2026-03-14"],
                                "challenge 'save' starts on 2026-03-15; a step dated 2026-03-14 comes before it")
        try store.expectRefused(["asset", "value", "flat", "250000.00", "--date", "2026-03-19"],
                                "asset 'flat' was added on 2026-03-20; a record dated 2026-03-19 comes before it")

        // On the day itself, each is taken.
        try store.run(["envelope", "record", "t1", "--account", "Assets:Bank", "--amount", "-12.00", "--envelope", "groceries", "--date", "2026-03-10"])
        try store.run(["envelope", "fund", "groceries", "--amount", "20.00", "--date", "2026-03-10"])
        try store.run(["challenge", "step", "save", "--from", "Assets:Bank", "--date", "2026-03-15"])
        try store.run(["asset", "value", "flat", "250000.00", "--date", "2026-03-20"])
        #expect(try store.run(["envelope", "status", "groceries", "--as-of", "2026-03-31", "--json"]).contains(#""spent":{"amount":"12.00""#))
        let netWorth = try store.run(["networth", "show", "--as-of", "2026-03-31", "--json"])
        #expect(netWorth.contains(#""id":"flat","origin":"item""#) && netWorth.contains(#""value":{"amount":"250000.00","currency":"USD"}"#), "\(netWorth)")
    }
}
