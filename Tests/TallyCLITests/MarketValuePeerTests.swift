import Foundation
import Testing
import Tally
import TallyLog

/// `tally balances --value EUR` against ledger-cli (`bal -X EUR`) and hledger (`bal -X EUR`)
/// on one generated journal with prices and rates: every account's value equal to the cent.
///
/// The journal (seeded; the seed is printed on failure, `TALLY_TEST_SEED` replays one): nine
/// holdings, each in an account of its own with its own opening account, so that each
/// account holds one commodity (ledger and hledger round an account's exact total, Tally
/// rounds each commodity's value and sums; with one commodity per account the rules agree):
/// symbols priced in EUR (direct), in USD and GBP (a hop through a rate), JPY and USD cash
/// (a rate quoted as 1 EUR = x, inverted), GBP cash (a rate 1 GBP = x EUR, direct). Ninety
/// days of prices and rates with gaps; values are compared at three dates. A peer that is
/// not installed is skipped with a message (`apt-get install ledger hledger`);
/// `TALLY_PEER_KEEP=DIR` keeps the generated files.
///
/// Both peers take the day after D as the (exclusive) end of the report. ledger values at
/// that bound itself, so a price dated D+1 would count: `--now D` makes it value at D, the
/// end of which is where Tally and hledger value.
@Suite struct MarketValuePeerTests {
    struct Holding {
        let account: String
        let counter: String
        let commodity: String
        let scale: Int
    }

    static let holdings: [Holding] = [
        Holding(account: "Assets:BrokerEU", counter: "Equity:OpenEU", commodity: "EUETF", scale: 8),
        Holding(account: "Assets:BrokerUS1", counter: "Equity:OpenUS1", commodity: "VEA", scale: 8),
        Holding(account: "Assets:BrokerUS2", counter: "Equity:OpenUS2", commodity: "VTI", scale: 8),
        Holding(account: "Assets:BrokerUK", counter: "Equity:OpenUK", commodity: "VWRL", scale: 8),
        Holding(account: "Assets:CashUSD", counter: "Income:SalaryUSD", commodity: "USD", scale: 2),
        Holding(account: "Assets:CashGBP", counter: "Income:SalaryGBP", commodity: "GBP", scale: 2),
        Holding(account: "Assets:CashJPY", counter: "Income:SalaryJPY", commodity: "JPY", scale: 0),
        Holding(account: "Assets:CashEUR", counter: "Income:SalaryEUR", commodity: "EUR", scale: 2),
        Holding(account: "Assets:Coin", counter: "Equity:OpenCoin", commodity: "COIN", scale: 8),
    ]
    /// Which currency each symbol is priced in.
    static let pricedIn = ["EUETF": "EUR", "VEA": "USD", "VTI": "USD", "VWRL": "GBP", "COIN": "USD"]
    static let firstDay = try! LocalDate(parsing: "2026-01-01")
    static let valuationDays = [20, 45, 89]

    static func peers() -> [(name: String, path: String)] {
        ["ledger", "hledger"].compactMap { name in
            let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
                .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            return path.map { (name, $0) }
        }
    }

    @Test func everyAccountsValueEqualsLedgerAndHledgerToTheCent() throws {
        let peers = Self.peers()
        guard !peers.isEmpty else {
            print("MarketValuePeerTests: skipped, neither ledger nor hledger is installed (apt-get install ledger hledger)")
            return
        }
        for missing in ["ledger", "hledger"] where !peers.contains(where: { $0.name == missing }) {
            print("MarketValuePeerTests: \(missing) is not installed; comparing with the others only")
        }
        let seed = TestSeedCLI.value(default: 1414)
        var random = SplitMix64(seed: seed)
        let directory = try TemporaryDirectory()

        // Postings: 150 random movements into each holding's account, over ninety days.
        var journalRows = ["date,account,counter_account,amount,currency,payee,category,external_id"]
        var ledgerText = """
            commodity EUR
                format 1,000.00 EUR

            """
        var postings: [(day: Int, text: String)] = []
        for index in 0..<150 {
            let holding = Self.holdings[index % Self.holdings.count]
            let day = Int(random.next() % 90)
            let minor = Int64(random.next() % (holding.scale == 8 ? 5_000_000_000 : 500_000)) + 1
            let amount = Money(minorUnits: minor, commodity: try Commodity.named(holding.commodity)).decimalString
            let date = Self.firstDay.adding(days: day)
            journalRows.append("\(date),\(holding.account),\(holding.counter),\(amount),\(holding.commodity),,,")
            postings.append((day, "\(date) move \(index)\n    \(holding.account)    \(amount) \(holding.commodity)\n    \(holding.counter)    -\(amount) \(holding.commodity)\n"))
        }

        // Prices (most days) and rates, each a random walk.
        var pricesRows = ["date,symbol,price,currency"]
        var rateEvents: [String] = []
        var directives: [String] = []
        var prices: [String: Int64] = ["EUETF": 10_000, "VEA": 5_015, "VTI": 25_000, "VWRL": 9_000, "COIN": 6_000_000]
        var rates: [(base: String, quote: String, value: Int64, scale: Int)] = [("EUR", "USD", 10_800, 4), ("GBP", "EUR", 11_700, 4), ("EUR", "JPY", 16_000, 2)]
        func decimal(_ value: Int64, _ scale: Int) -> String { try! ExactDecimal(significand: value, scale: scale).decimalString }
        for day in 0..<90 where random.next() % 5 != 0 {
            let date = Self.firstDay.adding(days: day)
            for symbol in prices.keys.sorted() where random.next() % 4 != 0 {
                prices[symbol]! = max(1, prices[symbol]! + Int64(random.next() % 201) - 100)
                let currency = Self.pricedIn[symbol]!
                let text = Money(minorUnits: prices[symbol]!, commodity: try Commodity.named(currency)).decimalString
                pricesRows.append("\(date),\(symbol),\(text),\(currency)")
                directives.append("P \(date) \(symbol) \(text) \(currency)")
            }
            for index in rates.indices where random.next() % 3 != 0 {
                rates[index].value = max(1, rates[index].value + Int64(random.next() % 41) - 20)
                let (base, quote, value, scale) = rates[index]
                rateEvents.append(#"{"type":"fx_rate_set","version":1,"effective_at":"\#(date)T00:00:00Z","data":{"base":"\#(base)","quote":"\#(quote)","rate":"\#(decimal(value, scale))"}}"#)
                directives.append("P \(date) \(base) \(decimal(value, scale)) \(quote)")
            }
        }
        ledgerText += directives.joined(separator: "\n") + "\n\n" + postings.sorted { $0.day < $1.day }.map(\.text).joined(separator: "\n")
        let ledgerFile = try directory.file("journal.ledger", ledgerText)
        if let keep = ProcessInfo.processInfo.environment["TALLY_PEER_KEEP"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: directory.path, toPath: keep)
        }

        let store = directory.path + "/store"
        #expect(try TallyProcess.run(["init", "--store", store, "--time-zone", "UTC"]).status == 0)
        for (name, text) in [("journal.csv", journalRows), ("prices.csv", pricesRows), ("rates.ndjson", rateEvents)] {
            let imported = try TallyProcess.run(["import", try directory.file(name, text.joined(separator: "\n") + "\n"), "--store", store])
            try #require(imported.status == 0, "\(name): \(imported.standardError)")
        }

        for day in Self.valuationDays {
            let date = Self.firstDay.adding(days: day)
            let next = date.adding(days: 1)
            let tally = try TallyProcess.run(["balances", "--store", store, "--value", "EUR", "--as-of", "\(date)", "--format", "csv"])
            try #require(tally.status == 0, "\(tally.standardError)")
            #expect(tally.standardError.isEmpty, "every commodity has a price by then: \(tally.standardError)")
            let expected = Dictionary(uniqueKeysWithValues: tally.standardOutput.split(separator: "\n").dropFirst().map { line in
                let fields = line.split(separator: ",").map(String.init)
                return (fields[0], "\(fields[2]) \(fields[1])")
            })
            #expect(expected.count >= 12, "seed \(seed): too few accounts to compare")
            for peer in peers {
                let arguments = peer.name == "ledger"
                    ? ["-f", ledgerFile, "bal", "-X", "EUR", "--end", "\(next)", "--now", "\(date)", "--flat", "--no-total", "--balance-format", "%(account)|%(display_total)\n"]
                    : ["-f", ledgerFile, "bal", "-X", "EUR", "-e", "\(next)", "--flat", "-N", "-O", "csv"]
                let output = try Self.run(peer.path, arguments)
                let values = Self.parse(output, csv: peer.name == "hledger")
                #expect(values == expected, "\(peer.name) at \(date), seed \(seed): \(Self.difference(values, expected))")
            }
        }
    }

    /// Account → "AMOUNT CUR", grouping separators dropped.
    static func parse(_ output: String, csv: Bool) -> [String: String] {
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let fields: [String]
            if csv {
                fields = line.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
                if fields.first == "account" { continue }
            } else {
                fields = line.split(separator: "|", maxSplits: 1).map(String.init)
            }
            guard fields.count == 2 else { continue }
            let amount = fields[1].replacingOccurrences(of: ",", with: "").trimmingCharacters(in: .whitespaces)
            if amount == "0" || amount.isEmpty { continue }
            values[fields[0]] = amount
        }
        return values
    }

    static func difference(_ peer: [String: String], _ tally: [String: String]) -> String {
        Set(peer.keys).union(tally.keys).sorted().compactMap { account in
            peer[account] == tally[account] ? nil : "\(account): peer \(peer[account] ?? "none"), tally \(tally[account] ?? "none")"
        }.joined(separator: "; ")
    }

    static func run(_ path: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

/// The seed of a randomized CLI test: `TALLY_TEST_SEED` when set, else the default.
enum TestSeedCLI {
    static func value(default seed: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment["TALLY_TEST_SEED"].flatMap { UInt64($0) } ?? seed
    }
}
