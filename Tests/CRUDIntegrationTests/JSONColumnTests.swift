@_spi(CRUDDriver) import CRUD
import Foundation
import Testing

@Suite("JSON columns")
struct JSONColumnTests {
    static let ada = Customer(id: 1, name: "Ada", address: Address(street: "Main \"Street\" 1", city: "Zürich", floors: [1, 2]),
                              previous: nil, tags: CRUDJSON(["vip", "émigré", ""]), scores: CRUDJSON(["q1": 1.5, "q2": -0.25]))
    static let bo = Customer(id: 2, name: "Bo", address: Address(street: "", city: "Oslo", floors: []),
                             previous: Address(street: "Old", city: "Bergen", floors: [3]), tags: CRUDJSON([]), scores: nil)

    static func database<C: DatabaseConfigurationProtocol>(_ configuration: C) throws -> Database<C> {
        let db = Database(configuration: configuration)
        try db.create(Customer.self, policy: .dropTable)
        try db.table(Customer.self).insert([ada, bo])
        return db
    }

    @Test("nested structs, arrays and dictionaries round-trip, as text on SQLite, jsonb on PostgreSQL, JSON on MySQL", arguments: Backend.all)
    func roundTrip(_ backend: Backend) throws { try roundTrip(backend.open(), backend) }

    func roundTrip<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = try Self.database(configuration)
        #expect(try db.table(Customer.self).order(by: \.id).select().map { $0 } == [Self.ada, Self.bo])
        let columns = try #require(try db.withConnection { try $0.columns(ofTable: "Customer") })
        let declared: [String] = switch backend {
        case .sqlite: ["INTEGER", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT"]
        case .postgres: ["bigint", "text", "jsonb", "jsonb", "jsonb", "jsonb"]
        // MariaDB's JSON is LONGTEXT with a json_valid check.
        case .mysql: ["bigint(20)", "longtext", "longtext", "longtext", "longtext", "longtext"]
        }
        #expect(columns.map(\.declaredType) == declared)
        try db.checkSchema([Customer.self])

        var moved = Self.bo
        moved.previous = moved.address
        moved.address.city = "Tromsø"
        moved.tags.value.append("moved")
        try db.table(Customer.self).where(\Customer.id == 2).update(moved)
        #expect(try db.table(Customer.self).where(\Customer.id == 2).first() == moved)

        // The database sees JSON it can query: the city of each address, by the database's own functions.
        let city = switch backend {
        case .sqlite: "SELECT json_extract(\(db.quote("address")), '$.city') AS \(db.quote("text")) FROM \(db.quote("Customer")) ORDER BY \(db.quote("id"))"
        case .postgres: "SELECT \(db.quote("address"))->>'city' AS \(db.quote("text")) FROM \(db.quote("Customer")) ORDER BY \(db.quote("id"))"
        case .mysql: "SELECT JSON_VALUE(\(db.quote("address")), '$.city') AS \(db.quote("text")) FROM \(db.quote("Customer")) ORDER BY \(db.quote("id"))"
        }
        #expect(try db.sql(city, TextValue.self).map(\.text) == ["Zürich", "Tromsø"])
        if backend == .sqlite {
            let stored = try db.sql("SELECT \"address\" AS \"text\" FROM \"Customer\" WHERE \"id\" = 1", TextValue.self)
            #expect(stored.map(\.text) == [#"{"city":"Zürich","floors":[1,2],"street":"Main \"Street\" 1"}"#], "keys sorted, one form per value")
        }
    }

    @Test("JSON of another shape, written by raw SQL, is a decoding error naming the column", arguments: Backend.all)
    func wrongShape(_ backend: Backend) throws { try wrongShape(backend.open()) }

    func wrongShape<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = try Self.database(configuration)
        try db.sql("UPDATE \(db.quote("Customer")) SET \(db.quote("address")) = '{\"town\": \"Oslo\"}' WHERE \(db.quote("name")) = 'Bo'")
        let error = #expect(throws: CRUDDecoderError.self) { try db.table(Customer.self).order(by: \.id).select().map { $0 } }
        #expect(error?.msg.contains("column \"address\"") == true, "\(error?.msg ?? "")")
        #expect(error?.msg.contains("no \"street\"") == true, "\(error?.msg ?? "")")
        #expect(try db.table(Customer.self).where(\Customer.id == 1).first() == Self.ada, "other rows still read")
    }

    @Test("invalid JSON: SQLite stores the text and the read fails clearly; PostgreSQL and MySQL refuse the write", arguments: Backend.all)
    func invalidJSON(_ backend: Backend) throws { try invalidJSON(backend.open(), backend) }

    func invalidJSON<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = try Self.database(configuration)
        let write = "UPDATE \(db.quote("Customer")) SET \(db.quote("tags")) = '[\"unclosed' WHERE \(db.quote("id")) = 1"
        if backend == .sqlite {
            try db.sql(write)
            let error = #expect(throws: CRUDDecoderError.self) { try db.table(Customer.self).where(\Customer.id == 1).first() }
            #expect(error?.msg.contains("column \"tags\"") == true, "\(error?.msg ?? "")")
            #expect(error?.msg.contains("not valid JSON") == true, "\(error?.msg ?? "")")
        } else {
            let error = #expect(throws: CRUDSQLExeError.self) { try db.sql(write) }
            // PostgreSQL: invalid_text_representation; MariaDB: the column's json_valid check.
            #expect(error?.code == (backend == .postgres ? "22P02" : "4025"))
            #expect(try db.table(Customer.self).where(\Customer.id == 1).first() == Self.ada, "nothing was written")
        }
    }

    @Test("a value that does not encode as JSON is an encoding error, and nothing is written", arguments: Backend.all)
    func unencodable(_ backend: Backend) throws { try unencodable(backend.open()) }

    func unencodable<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = try Self.database(configuration)
        var broken = Self.ada
        broken.scores = CRUDJSON(["q3": .nan])
        let error = #expect(throws: CRUDEncoderError.self) {
            try db.table(Customer.self).where(\Customer.id == 1).update(broken)
        }
        #expect(error?.msg.contains("CRUDJSON") == true, "\(error?.msg ?? "")")
        #expect(try db.table(Customer.self).where(\Customer.id == 1).first() == Self.ada)
    }
}
