import CRUD
import Foundation
import Testing

@Suite("constraints")
struct ConstraintTests {
    @Test("foreign keys with delete rules, unique sets and checks: created, enforced, violations told apart by kind",
          arguments: Backend.all)
    func constraints(_ backend: Backend) throws { try constraints(backend.open(), backend) }

    func constraints<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try db.create(Rider.self)
        try db.create(Bike.self)
        try db.table(Rider.self).insert([Rider(id: 1, name: "Ann"), Rider(id: 2, name: "Bob")])
        let bikes = db.table(Bike.self)
        try bikes.insert([
            Bike(id: 1, ownerId: 1, keeperId: 2, name: "Roadie", color: "red", wheels: 2),
            Bike(id: 2, ownerId: 2, keeperId: 1, name: "Roadie", color: "blue", wheels: 3),
            Bike(id: 3, ownerId: nil, keeperId: nil, name: "Orphan", color: "red", wheels: 1),
        ])

        let missing = #expect(throws: CRUDSQLExeError.self) {
            try bikes.insert(Bike(id: 4, ownerId: 99, keeperId: nil, name: "Ghost", color: "red", wheels: 2))
        }
        #expect(missing?.kind == .foreignKeyViolation)
        #expect(missing?.table == "Bike")
        if backend == .postgres { #expect(missing?.constraint == "Bike_ownerId_fkey") }

        let duplicate = #expect(throws: CRUDSQLExeError.self) {
            try bikes.insert(Bike(id: 5, ownerId: 1, keeperId: nil, name: "Roadie", color: "red", wheels: 2))
        }
        #expect(duplicate?.kind == .uniqueViolation)
        #expect(duplicate?.table == "Bike")
        if backend == .postgres { #expect(duplicate?.constraint == "Bike_name_color_key") }
        let primary = try #require(throws: CRUDSQLExeError.self, "the primary key is unique too") {
            try bikes.insert(Bike(id: 1, ownerId: 1, keeperId: nil, name: "Other", color: "green", wheels: 2))
        }
        #expect(primary.kind == .uniqueViolation)

        let wheels = #expect(throws: CRUDSQLExeError.self) {
            try bikes.insert(Bike(id: 6, ownerId: 1, keeperId: nil, name: "Quad", color: "red", wheels: 4))
        }
        #expect(wheels?.kind == .checkViolation)
        #expect(wheels?.constraint == "bike_wheels")

        let nullName = #expect(throws: CRUDSQLExeError.self) {
            try db.sql("INSERT INTO \(db.quote("Bike")) (\(db.quote("id")), \(db.quote("name")), \(db.quote("color")), \(db.quote("wheels"))) VALUES (7, NULL, 'x', 1)")
        }
        #expect(nullName?.kind == .notNullViolation)
        #expect(nullName?.table == "Bike")

        try db.table(Rider.self).where(\Rider.id == 2).delete()
        let left = try bikes.order(by: \.id).select().map { $0 }
        #expect(left.map(\.id) == [1, 3], "ON DELETE CASCADE removed Bob's bike")
        #expect(left.first?.keeperId == nil, "ON DELETE SET NULL cleared the keeper")
        #expect(try bikes.count() == 2)
    }

    @Test("deleting a row that a RESTRICT foreign key references is a foreign key violation on every backend", arguments: Backend.all)
    func restrict(_ backend: Backend) throws { try restrict(backend.open(), backend) }

    func restrict<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try db.create(Rider.self)
        try db.create(Rack.self)
        try db.table(Rider.self).insert(Rider(id: 1, name: "Ann"))
        try db.table(Rack.self).insert(Rack(id: 1, riderId: 1))
        let error = #expect(throws: CRUDSQLExeError.self) { try db.table(Rider.self).where(\Rider.id == 1).delete() }
        #expect(error?.kind == .foreignKeyViolation, "\(String(describing: error))")
        // PostgreSQL and MySQL name the table whose key refuses; SQLite names none, and the
        // statement's table stands in.
        #expect(error?.table == (backend == .sqlite ? "Rider" : "Rack"), "\(String(describing: error?.databaseMessage))")
        #expect(try db.table(Rider.self).count() == 1, "the rider stays")
    }

    @Test("ON DELETE SET DEFAULT: carried out on SQLite and PostgreSQL; refused at create on MySQL, whose InnoDB accepts it and then refuses deletes",
          arguments: Backend.all)
    func setDefault(_ backend: Backend) throws { try setDefault(backend.open(), backend) }

    func setDefault<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try db.create(Rider.self)
        guard backend != .mysql else {
            let error = #expect(throws: CRUDSQLGenError.self) { try db.create(Locker.self) }
            #expect(error?.msg.contains(".setDefault") == true && error?.msg.contains("use .setNull") == true, "\(String(describing: error))")
            #expect(try TableColumns(db).columnNames(ofTable: "Locker") == nil, "nothing was created")
            return
        }
        try db.create(Locker.self)
        try db.table(Rider.self).insert(Rider(id: 1, name: "Ann"))
        try db.table(Locker.self).insert(Locker(id: 1, riderId: 1))
        try db.table(Rider.self).where(\Rider.id == 1).delete()
        #expect(try db.table(Locker.self).select().map(\.riderId) == [nil])
    }

    @Test("a constraint naming a key path that is not a column is a clear error at create", arguments: Backend.all)
    func badConstraint(_ backend: Backend) throws { try badConstraint(backend.open()) }

    func badConstraint<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        let error = #expect(throws: CRUDSQLGenError.self) { try db.create(BadConstraint.self) }
        #expect(error?.msg.contains("names no column") == true)
        #expect(error?.msg.contains("BadConstraint") == true)
        #expect(try TableColumns(db).columnNames(ofTable: "BadConstraint") == nil, "nothing was created")
    }
}
