import Testing
@testable import TallyEngine
@testable import TallyProducts

/// Every registered event type says what it does to balances through
/// `EventPayload.postingDeclaration`, which the catalog reads instead of a runtime
/// conformance lookup; the value must be what the type's conformances say, for every type
/// the engine and the five products register (and for one that says nothing).
@Suite struct PostingDeclarationTests {
    @Test func everyRegisteredTypesDeclarationIsItsConformance() {
        let types = EventCatalog.standard.payloadTypes
        #expect(types.count > 50, "the standard catalog: \(types.count) types")
        for type in types {
            let expected: PostingDeclaration = type is any MovesMoney.Type ? .movesMoney : type is any MovesNoMoney.Type ? .movesNoMoney : .undeclared
            #expect(type.postingDeclaration == expected, "\(type.eventType.name): declares \(type.postingDeclaration), conforms as \(expected)")
            #expect(expected != .undeclared, "\(type.eventType.name) is registered but declares no postings")
        }
    }

    /// A type that conforms to neither reads as undeclared; one that conforms after its
    /// declaration (in an extension) reads as what the extension says.
    @Test func theDeclarationFollowsConformancesMadeInExtensions() {
        #expect(Plain.postingDeclaration == .undeclared)
        #expect(Posting.postingDeclaration == .movesMoney)
        #expect(Silent.postingDeclaration == .movesNoMoney)
    }

    fileprivate struct Plain: EventPayload {
        static let eventType = EventType("test_plain", code: 19_001)
        var entity: String { "test" }
        init() {}
        init(from reader: inout BinaryReader) throws {}
        func encode(to writer: inout BinaryWriter) {}
    }

    fileprivate struct Posting: EventPayload {
        static let eventType = EventType("test_posting", code: 19_002)
        var entity: String { "test" }
        init() {}
        init(from reader: inout BinaryReader) throws {}
        func encode(to writer: inout BinaryWriter) {}
    }

    fileprivate struct Silent: EventPayload {
        static let eventType = EventType("test_silent", code: 19_003)
        var entity: String { "test" }
        init() {}
        init(from reader: inout BinaryReader) throws {}
        func encode(to writer: inout BinaryWriter) {}
    }
}

extension PostingDeclarationTests.Posting: MovesMoney {
    func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [TallyEngine.Posting] { [] }
}

extension PostingDeclarationTests.Silent: MovesNoMoney {}
