import CRUD
import Foundation
import Testing

@Suite("value mapping")
struct ValueMappingTests {
    /// A row with every column type filled with awkward values; an infinite double where the
    /// backend of `configuration` stores one (MySQL's DOUBLE does not: there the largest finite one).
    static func sample(id: Int, for configuration: some DatabaseConfigurationProtocol) -> AllColumnTypes {
        AllColumnTypes(
            id: id, int8: -128, int16: .min, int32: .min, int64: .min, uint: UInt(Int64.max), uint8: .max, uint16: .max,
            uint32: .max, uint64: UInt64(Int64.max), double: -1.25e-300, float: .greatestFiniteMagnitude, bool: true,
            string: "It's \"quoted\"; DROP TABLE x; -- 😀 é\u{1}\u{7}\t\n", bytes: [0, 1, 127, 128, 255], signedBytes: [-128, -1, 0, 1, 127],
            data: Data([0, 0xFF, 0x10]), date: Date(timeIntervalSince1970: 1_700_000_000.123), uuid: UUID(),
            url: URL(string: "https://example.com/path?query=1&b=%20#frag")!, mood: .grumpy, priority: .low,
            cents: Cents(rawValue: -12_345), score: 0.1,
            optionalInt: -1, optionalInt8: 8, optionalInt16: 16, optionalInt32: 32, optionalInt64: .max, optionalUInt: 1,
            optionalUInt8: 0, optionalUInt16: 2, optionalUInt32: 3, optionalUInt64: 4, optionalDouble: Backend.isMySQL(configuration) ? .greatestFiniteMagnitude : .infinity, optionalFloat: -0.5,
            optionalBool: false, optionalString: "", optionalBytes: [], optionalSignedBytes: [-5], optionalData: Data(),
            optionalDate: Date(timeIntervalSince1970: -86_400.5), optionalUUID: UUID(), optionalURL: URL(string: "file:///tmp/a%20b"),
            optionalMood: .calm, optionalPriority: .high, optionalCents: Cents(rawValue: 0), optionalScore: -0.0, swiftInt: .min)
    }

    /// `sample` with every optional nil.
    static func sparse(id: Int, for configuration: some DatabaseConfigurationProtocol) -> AllColumnTypes {
        var value = sample(id: id, for: configuration)
        value.optionalInt = nil; value.optionalInt8 = nil; value.optionalInt16 = nil; value.optionalInt32 = nil
        value.optionalInt64 = nil; value.optionalUInt = nil; value.optionalUInt8 = nil; value.optionalUInt16 = nil
        value.optionalUInt32 = nil; value.optionalUInt64 = nil; value.optionalDouble = nil; value.optionalFloat = nil
        value.optionalBool = nil; value.optionalString = nil; value.optionalBytes = nil; value.optionalSignedBytes = nil
        value.optionalData = nil; value.optionalDate = nil; value.optionalUUID = nil; value.optionalURL = nil
        value.optionalMood = nil; value.optionalPriority = nil; value.optionalCents = nil; value.optionalScore = nil
        return value
    }

    /// Dates compared to the millisecond, the precision every backend keeps.
    static func normalized(_ value: AllColumnTypes) -> AllColumnTypes {
        var copy = value
        copy.date = Date(timeIntervalSince1970: (value.date.timeIntervalSince1970 * 1_000).rounded() / 1_000)
        copy.optionalDate = value.optionalDate.map { Date(timeIntervalSince1970: ($0.timeIntervalSince1970 * 1_000).rounded() / 1_000) }
        return copy
    }

    @Test("every column type round-trips, with and without values", arguments: Backend.all)
    func roundTrip(_ backend: Backend) throws { try roundTrip(backend.open()) }

    func roundTrip<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(AllColumnTypes.self)
        let rows = [Self.sample(id: 1, for: configuration), Self.sparse(id: 2, for: configuration)]
        try db.table(AllColumnTypes.self).insert(rows)
        let read = try db.table(AllColumnTypes.self).order(by: \.id).select().map { $0 }
        #expect(read.map(Self.normalized) == rows.map(Self.normalized))
        #expect(abs(read[0].date.timeIntervalSince(rows[0].date)) < 0.001)
    }

    @Test("dates keep milliseconds and sort in time order", arguments: Backend.all)
    func dates(_ backend: Backend) throws { try dates(backend.open()) }

    func dates<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(TestTable2.self)
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let offsets: [TimeInterval] = [0.001, -1_000_000_000, 0.002, 86_400 * 365 * 100, -0.001, 0]
        try db.table(TestTable2.self).insert(offsets.enumerated().map { index, offset in
            TestTable2(id: UUID(), parentId: index, date: base.addingTimeInterval(offset), name: nil, int: nil, doub: nil, blob: nil)
        })
        let read = try db.table(TestTable2.self).order(by: \.date).select().map { $0 }
        #expect(read.map(\.parentId) == [1, 4, 5, 0, 2, 3])
        for row in read {
            #expect(abs(row.date.timeIntervalSince(base.addingTimeInterval(offsets[row.parentId]))) < 0.000_5)
        }
    }

    @Test("UInt64 above Int64.max is an encoding error, and nothing is stored", arguments: Backend.all)
    func unsignedOverflow(_ backend: Backend) throws { try unsignedOverflow(backend.open()) }

    func unsignedOverflow<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(AllColumnTypes.self)
        var value = Self.sample(id: 1, for: configuration)
        value.uint64 = .max
        let error = #expect(throws: CRUDEncoderError.self) { try db.table(AllColumnTypes.self).insert(value) }
        #expect(error?.msg == "UInt64 value 18446744073709551615 is above Int64.max and cannot be stored exactly")
        #expect(try db.table(AllColumnTypes.self).count() == 0)
        #expect(throws: CRUDEncoderError.self) { try db.table(AllColumnTypes.self).where(\AllColumnTypes.uint64 == .max).count() }
    }

    @Test("a stored raw value with no enum case is a decoding error", arguments: Backend.all)
    func unknownEnumCase(_ backend: Backend) throws { try unknownEnumCase(backend.open()) }

    func unknownEnumCase<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(AllColumnTypes.self)
        try db.table(AllColumnTypes.self).insert(Self.sample(id: 1, for: configuration))
        try db.sql("UPDATE \(db.quote("AllColumnTypes")) SET \(db.quote("mood")) = 'furious'")
        let error = #expect(throws: CRUDDecoderError.self) { try db.table(AllColumnTypes.self).select().map { $0 } }
        #expect(error?.msg == "reading AllColumnTypes: column \"mood\": furious is not a raw value of Mood")
    }
}
