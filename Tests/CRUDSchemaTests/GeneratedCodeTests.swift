@_spi(Generated) import CRUD
import Foundation
import Testing

/// The code the plugin generated for the Schemas/ sets, exercised through an in-memory row store.
@Suite("Generated code")
struct GeneratedCodeTests {
    static let everything = AllColumnTypes(
        id: 1, int8: -128, int16: -32_768, int32: .min, int64: .min, uint: UInt(Int64.max), uint8: 255, uint16: .max,
        uint32: .max, uint64: UInt64(Int64.max), double: -1.5e300, float: 3.25, bool: true,
        string: "It's \"quoted\"; -- 😀 \u{0}\u{7}", bytes: [0, 1, 255], signedBytes: [-128, -1, 0, 127],
        data: Data([9, 8, 7]), date: Date(timeIntervalSince1970: 1_700_000_000.123), uuid: UUID(),
        url: URL(string: "https://example.com/a?b=c")!, mood: .grumpy, priority: .low, cents: Cents(rawValue: -42), score: 0.5,
        optionalInt: 5, optionalInt8: nil, optionalInt16: -2, optionalInt32: nil, optionalInt64: 64, optionalUInt: nil,
        optionalUInt8: 8, optionalUInt16: nil, optionalUInt32: 32, optionalUInt64: nil, optionalDouble: nil, optionalFloat: -0.5,
        optionalBool: false, optionalString: nil, optionalBytes: [], optionalSignedBytes: nil, optionalData: Data(),
        optionalDate: nil, optionalUUID: UUID(), optionalURL: nil, optionalMood: .calm, optionalPriority: nil,
        optionalCents: nil, optionalScore: 2, swiftInt: .max)

    @Test("every column type round-trips through the generated binder and reader")
    func allTypesRoundTrip() throws {
        #expect(try roundTrip(Self.everything) == Self.everything)
        let stored = try storedRow(Self.everything)
        #expect(stored[0] == .integer(1))
        #expect(stored[15] == .blob([128, 255, 0, 127]), "[Int8] is stored by bit pattern")
        #expect(stored[20] == .text("GRUMPY"), "enums are stored as their raw value")
        #expect(stored[21] == .integer(-1))
        #expect(stored[22] == .integer(-42))
        #expect(stored[25] == .null)
    }

    @Test("the schema lists columns in declaration order with types and nullability")
    func allTypesSchema() {
        let schema = AllColumnTypes.crudSchema
        #expect(schema.name == "AllColumnTypes")
        #expect(schema.primaryKey == 0)
        #expect(schema.columns.count == 49)
        #expect(schema.columns.prefix(4).map(\.type) == [.integer(bits: 64, signed: true), .integer(bits: 8, signed: true), .integer(bits: 16, signed: true), .integer(bits: 32, signed: true)])
        #expect(schema.columns[9] == CRUDColumnSchema(name: "uint64", type: .integer(bits: 64, signed: false), isOptional: false))
        #expect(schema.columns[10...23].map(\.type) == [.real(bits: 64), .real(bits: 32), .bool, .text, .blob, .blob, .blob, .date, .uuid, .text, .text, .integer(bits: 8, signed: true), .integer(bits: 64, signed: true), .real(bits: 64)])
        #expect(schema.columns[24...47].allSatisfy { $0.isOptional })
        #expect(schema.columns[..<24].allSatisfy { !$0.isOptional })
        #expect(schema.columns[48].name == "swiftInt")
    }

    @Test("the single-column accessor binds exactly what the row binder binds")
    func columnAccessor() throws {
        let row = try storedRow(Self.everything)
        for column in row.indices {
            var binder = MemoryBinder()
            try Self.everything.crudBindColumn(column, to: &binder, at: 7)
            #expect(binder.values == [7: row[column]], "column \(column)")
        }
        var binder = MemoryBinder()
        #expect(throws: CRUDEncoderError.self) { try GeneratedCodeTests.everything.crudBindColumn(49, to: &binder, at: 0) }
    }

    @Test("key paths find their columns, force-unwrapped optionals included")
    func keyPathLookup() {
        #expect(Person.crudColumnIndex(of: \Person.id) == 0)
        #expect(Person.crudColumnIndex(of: \Person.lastName) == 2)
        #expect(Person.crudColumnIndex(of: \Person.height) == 3)
        #expect(Person.crudColumnIndex(of: \Person.height!) == 3)
        #expect(Person.crudColumnIndex(of: \Person.phoneNumbers) == nil)
        #expect(Person.crudRelationIndex(of: \Person.phoneNumbers) == 0)
        #expect(Person.crudRelationIndex(of: \Person.firstName) == nil)
        #expect(Person.crudColumnIndex(ofAny: \PhoneNumber.planetCode) == nil, "a key path of another type names no column")
        #expect(PhoneNumber.crudColumnIndex(ofAny: \PhoneNumber.planetCode) == 1)
        #expect(TestTable1.crudColumnIndex(of: \TestTable1.integer!) == 2)
        #expect(Decorated.crudColumnIndex(of: \Decorated.class) == 7)
        #expect(Decorated.crudColumnIndex(of: \Decorated.computed) == nil)
    }

    @Test("typed column constants carry position, name and value type")
    func columnConstants() {
        let firstName: CRUDColumn<Person, String> = Person.Columns.firstName
        let height: CRUDColumn<Person, Double?> = Person.Columns.height
        #expect((firstName.index, firstName.name) == (1, "firstName"))
        #expect(height.schema == CRUDColumnSchema(name: "height", type: .real(bits: 64), isOptional: true))
        #expect(TestTable1.Columns.integer.name == "int")
        #expect(Decorated.Columns.class.name == "order")
        #expect(Decorated.Columns.naïveCafé.name == "naive_cafe")
    }

    @Test("CodingKeys rename columns; TableNameProvider renames tables")
    func renames() {
        #expect(TestTable1.crudSchema.name == "test_table_1")
        #expect(TestTable1.crudSchema.columns.map(\.name) == ["id", "name", "int", "doub", "blob"])
        #expect(AuditEntry.crudSchema.name == "audit log")
        #expect(Decorated.crudSchema.columns.map(\.name) == ["id", "default", "naive_cafe", "日本語", "title", "observed", "legacy", "order"])
    }

    @Test("relations are filled from the row: nil when not joined, the joined rows when joined")
    func relations() throws {
        let person = Person(id: UUID(), firstName: "Owen", lastName: "Lars", height: 180, phoneNumbers: nil)
        #expect(try roundTrip(person).phoneNumbers == nil)
        let numbers = [PhoneNumber(personId: person.id, planetCode: 12, number: "555-555-1212")]
        let joined = try roundTrip(person, relations: [0: numbers])
        #expect(joined.phoneNumbers?.map(\.number) == ["555-555-1212"])
        #expect(try roundTrip(person, relations: [0: [PhoneNumber]()]).phoneNumbers?.isEmpty == true)

        #expect(Person.crudSchema.relations.map(\.name) == ["phoneNumbers"])
        #expect(Person.crudSchema.relations.first?.target == PhoneNumber.self)
        #expect(Me.crudSchema.relations.first?.target == Me.self, "a self relation")
        #expect(Student.crudSchema.relations.first?.target == Class.self)
        #expect(Class.crudSchema.relations.first?.target == Student.self)
        #expect(Outer.FromExtension.crudSchema.relations.first?.target == Outer.Inner.self)
        #expect(Namespace.Deeper.Deepest.crudSchema.relations.first?.target == Namespace.Deeper.Deepest.self)
        #expect(StudentClasses.crudSchema.primaryKey == nil, "no id property, no primary key")
    }

    @Test("models with custom initializers still read rows")
    func customInitializers() throws {
        let me = try roundTrip(Me(id: 2, parentId: 1), relations: [0: [Me(id: 3, parentId: 2)]])
        #expect(me.id == 2 && me.parentId == 1 && me.mes?.map(\.id) == [3])
        #expect(try roundTrip(Student(id: 4)).id == 4)
    }

    @Test("a row reads the same through the memberwise initializer and property by property")
    func readerShapes() throws {
        var keyed = KeyedOutOfOrder(id: 1, note: nil, title: "first", cached: 5, version: 9)
        #expect(KeyedOutOfOrder.crudSchema.columns.map(\.name) == ["title", "id", "remark"])
        #expect(try storedRow(keyed) == [.text("first"), .integer(1), .null])
        #expect(try roundTrip(keyed) == KeyedOutOfOrder(id: 1, note: nil, title: "first"), "left-out properties keep their defaults")
        keyed.note = "with a note"
        #expect(try roundTrip(keyed).note == "with a note")
        #expect(try roundTrip(keyed).kind == "keyed")

        let own = OwnInitializer(id: 2, title: "second", note: "n")
        #expect(try roundTrip(own) == own)
        #expect(try roundTrip(OwnInitializer(id: 3, title: "")) == OwnInitializer(id: 3, title: ""))

        var state = try PrivateState(crudRow: MemoryRow(values: [.integer(4), .text("fourth")]))
        #expect(state.id == 4 && state.title == "fourth" && !state.isTouched)
        state.touch()
        #expect(try !roundTrip(state).isTouched, "the private property keeps its default")

        var lazy = try roundTrip(LazyDerived(id: 5, title: "fifth"))
        #expect(lazy.id == 5 && lazy.shouted == "FIFTH")

        // Reading stops at the first column that does not fit, whichever way the model is built.
        let badTitle: [CRUDDatabaseValue] = [.integer(7), .integer(1), .null]
        #expect(throws: WrongStorage.self) { try KeyedOutOfOrder(crudRow: MemoryRow(values: badTitle)) }
        #expect(throws: WrongStorage.self) { try OwnInitializer(crudRow: MemoryRow(values: [.integer(1), .integer(7), .null])) }
    }

    @Test("properties that are not columns keep their defaults when read")
    func nonColumns() throws {
        var decorated = Decorated(id: 1, default: true, naïveCafé: "café", 日本語: nil, title: "Title", observed: 3, legacy: "old", class: 9)
        decorated.omittedWithDefault = 99
        decorated.omittedOptional = "set"
        let read = try roundTrip(decorated)
        #expect(read.naïveCafé == "café" && read.class == 9 && read.observed == 3 && read.title == "Title")
        #expect(read.omittedWithDefault == 7)
        #expect(read.omittedOptional == nil)
        #expect(read.constant == "fixed")
    }

    @Test("shared type annotations and literal-inferred types")
    func inferredTypes() throws {
        #expect(SharedType.crudSchema.columns.map(\.name) == ["id", "left", "right", "x", "y", "flag", "label"])
        #expect(SharedType.crudSchema.columns.map(\.type) == [.integer(bits: 64, signed: true), .real(bits: 64), .real(bits: 64), .integer(bits: 64, signed: true), .real(bits: 64), .bool, .text])
        let value = SharedType(id: 1, left: 1.5, right: -2)
        let read = try roundTrip(value)
        #expect((read.left, read.right, read.x, read.y, read.flag, read.label) == (1.5, -2, 1, 2.5, true, "text"))
    }

    @Test("models under #if get the code of the branch that compiles")
    func conditionalModels() {
        #if os(Linux)
        #expect(PlatformNote.crudSchema.columns.map(\.name) == ["id", "linuxText"])
        #elseif os(macOS) || os(iOS)
        #expect(PlatformNote.crudSchema.columns.map(\.name) == ["id", "appleText"])
        #endif
        #expect(Conditional.crudSchema.columns.map(\.name) == ["id", "value"])
        #expect(TortureStrings.crudSchema.columns.map(\.name) == ["id", "text", "note"])
    }

    @Test("constructs from real packages: #\"\"\"# strings, generic arguments in initializers, per-branch structs marked by an extension, CodingKeys order")
    func realCode() {
        #expect(BetweenRawQuotes.crudSchema.columns.map(\.name) == ["id", "name"])
        #expect(GenericInitializers.crudSchema.columns.map(\.name) == ["id", "total", "name", "rank"])
        #if os(Linux)
        #expect(PerBranch.crudSchema.columns.map(\.name) == ["id", "linuxOnly"])
        #else
        #expect(PerBranch.crudSchema.columns.map(\.name) == ["id"])
        #endif
        #expect(ReorderedKeys.crudSchema.columns.map(\.name) == ["c", "a", "bee"])
        #expect(ReorderedKeys.crudColumnIndex(of: \ReorderedKeys.b) == 2)
    }

    @Test("Sqlable's Bicycle: an optional id is still the primary-key candidate")
    func bicycle() throws {
        #expect(Bicycle.crudSchema.primaryKey == 0)
        #expect(Bicycle.crudSchema.columns.first?.isOptional == true)
        let bike = Bicycle(id: nil, name: "My bike", color: "Black")
        #expect(try roundTrip(bike) == bike)
    }
}

@Suite("Generated code: bad values")
struct BadValueTests {
    @Test("NULL in a non-optional column is a decoder error naming the column")
    func nullInNonOptional() throws {
        var row = try storedRow(GeneratedCodeTests.everything)
        row[13] = .null
        let error = try #require(throws: CRUDDecoderError.self) { try AllColumnTypes(crudRow: MemoryRow(values: row)) }
        #expect(error.msg == "column 13: NULL where a value is required (the property is not optional)")
    }

    @Test("an integer out of the property's range is a decoder error, not a wrapped value")
    func outOfRange() throws {
        var row = try storedRow(GeneratedCodeTests.everything)
        row[1] = .integer(300)
        let error = try #require(throws: CRUDDecoderError.self) { try AllColumnTypes(crudRow: MemoryRow(values: row)) }
        #expect(error.msg == "column 1: 300 does not fit in Int8")
        row[1] = .integer(1)
        row[9] = .integer(-1)
        #expect(throws: CRUDDecoderError.self) { try AllColumnTypes(crudRow: MemoryRow(values: row)) }
    }

    @Test("a raw value with no enum case is a decoder error naming it")
    func unknownRawValue() throws {
        var row = try storedRow(GeneratedCodeTests.everything)
        row[20] = .text("furious")
        let error = try #require(throws: CRUDDecoderError.self) { try AllColumnTypes(crudRow: MemoryRow(values: row)) }
        #expect(error.msg == "column 20: furious is not a raw value of Mood")
    }

    @Test("text that is no URL is a decoder error")
    func badURL() throws {
        var row = try storedRow(GeneratedCodeTests.everything)
        row[19] = .text("")
        #expect(throws: CRUDDecoderError.self) { try AllColumnTypes(crudRow: MemoryRow(values: row)) }
    }

    @Test("a UInt64 above Int64.max is an encoder error, never a wrapped number")
    func unsignedOverflow() {
        var value = GeneratedCodeTests.everything
        value.uint64 = .max
        #expect(throws: CRUDEncoderError.self) { try storedRow(value) }
        value.uint64 = 0
        value.optionalUInt64 = UInt64(Int64.max) + 1
        #expect(throws: CRUDEncoderError.self) { try storedRow(value) }
    }
}
