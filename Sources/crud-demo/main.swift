import CRUD
#if MySQL
import CRUDMySQL
#endif
import CRUDPostgres
import CRUDSQLite
import Foundation

// A walk through CRUD: create, insert, join, where, update, delete. On SQLite in a temporary folder
// by default; on PostgreSQL with `--postgres URL`, on MySQL or MariaDB with `--mysql URL` (their tables
// are dropped and made anew).
CRUDLogging.queryLogDestinations = []

func section(_ title: String) {
    print("\n== \(title)")
}

let usage = "USAGE: crud-demo [--postgres postgresql://user:password@host:port/database | --mysql mysql://user:password@host:port/database]"

func main() -> Int32 {
    let arguments = Array(CommandLine.arguments.dropFirst())
    do {
        switch arguments.count {
        case 0:
            let directory = FileManager.default.temporaryDirectory.appending(path: "crud-demo-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appending(path: "demo.sqlite").path
            print("SQLite database at \(path)")
            try walkThrough(Database(configuration: try SQLiteDatabaseConfiguration(path)))
        case 2 where arguments[0] == "--postgres":
            let configuration = try PostgresDatabaseConfiguration(url: arguments[1])
            print("PostgreSQL \(configuration.target)")
            try walkThrough(Database(configuration: configuration))
        case 2 where arguments[0] == "--mysql":
            #if MySQL
            let configuration = try MySQLDatabaseConfiguration(url: arguments[1])
            print("MySQL \(configuration.target)")
            try walkThrough(Database(configuration: configuration))
            #else
            print("this crud-demo was built without CRUD's MySQL trait: swift run --traits MySQL crud-demo --mysql URL (needs libmariadb-dev)")
            return 2
            #endif
        default:
            print(usage)
            return arguments == ["--help"] || arguments == ["-h"] ? 0 : 2
        }
        CRUDLogging.flush()
        return 0
    } catch {
        CRUDLogging.flush()
        print("demo failed: \(error)")
        return 1
    }
}

func walkThrough<C: DatabaseConfigurationProtocol>(_ db: Database<C>) throws {

    section("create")
    try db.create(Person.self, policy: .dropTable)
    try db.create(Bicycle.self, policy: .dropTable)
    try db.table(PhoneNumber.self).index(\.personId)
    print("tables Person, PhoneNumber (created with Person, which joins it) and Bicycle; an index on PhoneNumber.personId")

    section("insert")
    let owen = Person(id: UUID(), firstName: "Owen", lastName: "Lars", height: 178, phoneNumbers: nil)
    let beru = Person(id: UUID(), firstName: "Beru", lastName: "Lars", height: nil, phoneNumbers: nil)
    let luke = Person(id: UUID(), firstName: "Luke", lastName: "Skywalker", height: 172, phoneNumbers: nil)
    try db.table(Person.self).insert([owen, beru, luke])
    try db.table(PhoneNumber.self).insert([
        PhoneNumber(personId: owen.id, planetCode: 12, number: "555-555-1212"),
        PhoneNumber(personId: owen.id, planetCode: 15, number: "555-555-2222"),
        PhoneNumber(personId: beru.id, planetCode: 12, number: "555-555-1212"),
        PhoneNumber(personId: luke.id, planetCode: 15, number: "555-555-3333"),
    ])
    let bikeId = try db.table(Bicycle.self).insert(Bicycle(id: nil, name: "Speeder", color: "red"), ignoreKeys: \.id).lastInsertId()
    print("3 people, 4 phone numbers, and a bicycle the database gave id \(bikeId.map(String.init) ?? "?")")

    section("join and where: the Lars family's numbers on planet 12")
    let lars = try db.table(Person.self)
        .order(by: \.lastName, \.firstName)
        .join(\.phoneNumbers, on: \.id, equals: \.personId)
        .order(descending: \.planetCode)
        .where(\Person.lastName == "Lars" && \PhoneNumber.planetCode == 12)
        .select()
    for person in lars {
        let numbers = person.phoneNumbers?.map { "\($0.number) (planet \($0.planetCode))" } ?? []
        print("\(person.firstName) \(person.lastName): \(numbers.joined(separator: ", "))")
    }

    section("where with optionals, LIKE and IN")
    let tall = try db.table(Person.self).where(\Person.height! >= 175).select().map(\.firstName)
    let unmeasured = try db.table(Person.self).where(\Person.height == nil).select().map(\.firstName)
    let sky = try db.table(Person.self).where(\Person.lastName =% "Sky").count()
    let some = try db.table(Person.self).where(\Person.firstName ~ ["Luke", "Leia"]).count()
    print("175 cm or taller: \(tall); height unknown: \(unmeasured); last names beginning with Sky: \(sky); named Luke or Leia: \(some)")

    section("update")
    var measured = beru
    measured.height = 165
    try db.table(Person.self).where(\Person.id == beru.id).update(measured, setKeys: \.height)
    let heights = try db.table(Person.self).order(by: \.firstName).select().map { "\($0.firstName): \($0.height.map { "\($0) cm" } ?? "unknown")" }
    print(heights.joined(separator: ", "))

    section("transaction")
    do {
        try db.transaction {
            try db.table(Bicycle.self).insert(Bicycle(id: nil, name: "Swoop", color: "black"), ignoreKeys: \.id)
            throw CRUDSQLGenError("changed my mind")
        }
    } catch {
        print("rolled back (\(error)); bicycles: \(try db.table(Bicycle.self).count())")
    }

    section("delete")
    try db.table(PhoneNumber.self).where(\PhoneNumber.planetCode == 15).delete()
    print("numbers left after deleting planet 15's: \(try db.table(PhoneNumber.self).count())")

    section("raw SQL")
    let counted = try db.sql("SELECT * FROM \(db.quote(Person.self)) WHERE \(db.quote("lastName")) = \(db.placeholder(0)) "
        + "ORDER BY \(db.quote("firstName"))", bindings: ["Lars"], Person.self)
    print("Person rows with lastName Lars: \(counted.map(\.firstName))")
}

exit(main())
