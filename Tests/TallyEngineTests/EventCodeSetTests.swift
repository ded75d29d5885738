import Testing
import TallyTestSupport
@testable import TallyEngine
import TallyLog

/// The bit set a fold asks, per event and projector, whether it reads an event's type.
@Suite struct EventCodeSetTests {
    @Test func itHoldsExactlyTheCodesItWasMadeOf() {
        let seed = TestSeed.value(default: 20_261_127)
        var random = SplitMix64(seed: seed)
        for _ in 0..<200 {
            let codes = Set((0..<Int.random(in: 0...40, using: &random)).map { _ in
                Bool.random(using: &random) ? UInt32.random(in: 0...200, using: &random) : UInt32.random(in: 0...70_000, using: &random)
            })
            let set = EventCodeSet(codes)
            let neighbours: [UInt32] = codes.flatMap { [$0, $0 &+ 1, $0 &- 1, $0 &+ 64] }
            for probe in neighbours + [0, 63, 64, 65, 1_000_000, UInt32.max] {
                #expect(set.contains(probe) == codes.contains(probe), "seed \(seed): code \(probe) in \(codes.sorted())")
            }
        }
    }
}
