import Testing
@testable import TallyLog

@Test func formatVersionIsOne() { #expect(LogFormat.version == 1) }
