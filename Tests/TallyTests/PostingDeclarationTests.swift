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

    /// Folds ask a payload for its legs and its version change through `EventPayload`
    /// (no cast, which would copy it); for a sample of every registered type the answers
    /// equal what its `MovesMoney` and `ChangesTransactionVersion` conformances say, and
    /// they are asked of a context in which a transaction has a version in force.
    @Test(arguments: EventSamples.bodies.map(\.type.name))
    func thePayloadsOwnAnswersAreItsConformances(_ name: String) throws {
        let payload = try #require(EventSamples.byTypeName[name]).payload
        let context = FixedContext()
        let at = Instant(microsecondsSinceEpoch: 1_767_225_600_000_000)
        let expectedLegs = try (payload as? any MovesMoney)?.postings(at: at, context: context) ?? []
        #expect(try payload.declaredPostings(at: at, context: context) == expectedLegs, "\(name)")
        let expectedChange = try (payload as? any ChangesTransactionVersion)?.versionChange(at: at, context: context)
        #expect(try payload.declaredVersionChange(at: at, context: context) == expectedChange, "\(name)")
        if name == JournalEntryPosted.eventType.name {
            #expect(!expectedLegs.isEmpty, "a journal entry posts legs")
        }
    }

    /// The same for types that conform in extensions made after their declaration.
    @Test func thePayloadsOwnAnswersFollowConformancesMadeInExtensions() throws {
        let at = Instant(microsecondsSinceEpoch: 0)
        #expect(try Posting().declaredPostings(at: at, context: FixedContext()).map(\.account) == ["test"])
        #expect(try Plain().declaredPostings(at: at, context: FixedContext()).isEmpty)
        #expect(try Silent().declaredPostings(at: at, context: FixedContext()).isEmpty)
        #expect(try Posting().declaredVersionChange(at: at, context: FixedContext()) == nil)
    }

    /// A context in which every transaction has one version in force and every balance is 12.34.
    private struct FixedContext: PostingContext {
        func currentVersion(of transactionId: String) throws -> TransactionVersion? {
            TransactionVersion(
                transactionId: transactionId, account: "Budget:Current", counterAccount: "Expenses:Groceries",
                category: "groceries", amount: Money(minorUnits: -1_250, commodity: .usd),
                effectiveAt: Instant(microsecondsSinceEpoch: 1_700_000_000_000_000), source: "manual")
        }
        func balance(of account: String, in commodity: Commodity) throws -> Int64 { 1_234 }
        func balances(withPrefix prefix: String) throws -> [(account: String, amount: Money)] {
            [("\(prefix)One", Money(minorUnits: 1_234, commodity: .usd))]
        }
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
    func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [TallyEngine.Posting] {
        [TallyEngine.Posting(account: "test", amount: Money(minorUnits: 1, commodity: .usd), effectiveAt: effectiveAt)]
    }
}

extension PostingDeclarationTests.Silent: MovesNoMoney {}
