// libFuzzer target: the journal CSV reader (`CSVReader`, `JournalCSV`, through
// `JournalImport.validate`, the validating pass of `tally import FILE.csv`).
//
// The reader streams from a file, so each input is written to one scratch file first.
// Any outcome is fine but a crash, a hang or unbounded memory; a file that validates must
// validate again with the same row count and digest.
@testable import Tally
import Foundation

private let scratch = NSTemporaryDirectory() + "tally-fuzz-csv-\(ProcessInfo.processInfo.processIdentifier).csv"
private let calendar = try! LedgerCalendar(timeZoneIdentifier: "Europe/London")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJournalCSV(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard FileManager.default.createFile(atPath: scratch, contents: Data(bytes: data, count: size)) else {
        fatalError("cannot write the scratch file \(scratch)")
    }
    guard let journal = try? JournalImport.validate(csvAt: scratch, calendar: calendar) else { return 0 }
    guard let again = try? JournalImport.validate(csvAt: scratch, calendar: calendar),
          again.rows == journal.rows, again.sha256 == journal.sha256
    else { fatalError("a journal that validated does not validate the same way twice") }
    return 0
}
