// household-journal: writes the synthetic household journal for every tool of the peer
// comparison, and the balances each must print.
//
//   household-journal --transactions 100000 [--seed 42] [--as-of 2016-06-30] --out DIR
//
// DIR gets household.csv (Tally), household.journal (ledger-cli, hledger),
// household.beancount and expected.csv (account,currency,balance at the end of --as-of).
import Glibc
import HouseholdJournal
import Tally

func fail(_ message: String) -> Never {
    let line = Array("household-journal: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

var transactions: Int?
var seed: UInt64 = 42
var asOf = "2016-06-30"
var directory: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    func value() -> String {
        guard let value = arguments.next() else { fail("\(argument) needs a value") }
        return value
    }
    switch argument {
    case "--transactions":
        guard let count = Int(value()), count >= 2 else { fail("--transactions needs a whole number of at least 2") }
        transactions = count
    case "--seed":
        guard let number = UInt64(value()) else { fail("--seed needs a whole number") }
        seed = number
    case "--as-of": asOf = value()
    case "--out": directory = value()
    case "-h", "--help":
        print("usage: household-journal --transactions N [--seed 42] [--as-of YYYY-MM-DD] --out DIR")
        exit(0)
    default: fail("unknown argument '\(argument)' (see --help)")
    }
}
guard let transactions else { fail("--transactions N is required") }
guard let directory else { fail("--out DIR is required") }
guard let date = try? LocalDate(parsing: asOf) else { fail("--as-of '\(asOf)' is not a date YYYY-MM-DD") }

let journal = HouseholdJournal(transactions: transactions, seed: seed)
do {
    for format in JournalFormat.allCases {
        try journal.write(format, to: "\(directory)/household.\(format.fileExtension)")
    }
    try journal.writeBalances(through: date, to: "\(directory)/expected.csv")
} catch {
    fail("\(error)")
}
