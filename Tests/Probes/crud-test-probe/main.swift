import CRUD
#if MySQL
import CRUDMySQL
#endif
import CRUDPostgres
import CRUDSQLite
import Foundation

// A program the integration tests run as a child process, for what only a whole process shows:
// what happens at exit, and what survives a kill -9.
//
//   crud-test-probe log file PATH return|exit   six events to a log file, then end main that way
//   crud-test-probe log console - return|exit   the same on standard output
//   crud-test-probe commit PATH                 committed transactions until killed, each reported
//   crud-test-probe read-then-write PATH        counts Ledger rows, then tries to write one; reports both
//   crud-test-probe migrate GO BACKEND KEY=VALUE…
//                                               once the file GO exists, migrates the database (sqlite
//                                               path=…; postgres libpq keywords; mysql database=, host=,
//                                               port=, socket=, user=, password=) with the migration tests'
//                                               history; reports each step it ran and the steps applied

struct Ledger: CRUDModel {
    let id: Int
    let transaction: Int
    let entry: Int
}

// The migration tests' models and history (MigrationTests.history), to migrate from another process.
struct Cycle: CRUDModel {
    let id: Int
    var color: String
    var gears: Int

    static let crudConstraints: [CRUDConstraint<Cycle>] = [.unique(\.color, \.gears)]
}

struct Reading: CRUDModel {
    let id: Int
    var value: Double?
    var label: String
}

func history<C: DatabaseConfigurationProtocol>(_: C.Type) -> CRUDMigrator<C> {
    var migrator = CRUDMigrator<C>()
    migrator.register("v1: cycles") { db in
        print("ran v1")
        try db.create(Cycle.self)
        // Holds the migration lock a while, so that the other migrators surely wait for it.
        Thread.sleep(forTimeInterval: 0.3)
    }
    migrator.register("v2: color index, first cycles") { db in
        print("ran v2")
        try db.table(Cycle.self).index(\.color)
        try db.table(Cycle.self).insert([Cycle(id: 1, color: "red", gears: 3), Cycle(id: 2, color: "blue", gears: 21)])
    }
    migrator.register("v3: readings, one gear more") { db in
        print("ran v3")
        try db.create(Reading.self)
        try db.sql("UPDATE \(db.quote(Cycle.self)) SET \(db.quote("gears")) = \(db.quote("gears")) + 1")
    }
    return migrator
}

func migrate<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
    let applied = try history(C.self).migrate(Database(configuration: configuration))
    print("applied: \(applied.joined(separator: "; "))")
}

let arguments = CommandLine.arguments.dropFirst()
switch (arguments.first, arguments.count) {
case ("log", 4):
    let path = arguments[arguments.startIndex + 2]
    CRUDLogging.errorLogDestinations = arguments[arguments.startIndex + 1] == "file" ? [.file(path)] : [.console]
    for line in 1 ... 6 {
        CRUDLogging.log(.info, "probe event \(line)")
    }
    if arguments.last == "exit" { exit(0) }
case ("commit", 2):
    CRUDLogging.queryLogDestinations = []
    let db = Database(configuration: try SQLiteDatabaseConfiguration(arguments.last!))
    try db.create(Ledger.self)
    var transaction = (try db.table(Ledger.self).count()) / 10
    while true {
        try db.transaction {
            let entries = (0 ..< 10).map { Ledger(id: transaction * 10 + $0, transaction: transaction, entry: $0) }
            try db.table(Ledger.self).insert(entries)
        }
        // Reported only once the commit returned: every number printed must be in the file.
        print("committed \(transaction)")
        fflush(nil)
        transaction += 1
    }
case ("read-then-write", 2):
    CRUDLogging.queryLogDestinations = []
    CRUDLogging.errorLogDestinations = []
    do {
        let db = Database(configuration: try SQLiteDatabaseConfiguration(arguments.last!))
        print("rows: \(try db.table(Ledger.self).count())")
        try db.table(Ledger.self).insert(Ledger(id: -1, transaction: -1, entry: -1))
        print("written")
    } catch {
        print("error: \(error)")
    }
case ("migrate", 3...):
    CRUDLogging.queryLogDestinations = []
    let go = arguments[arguments.startIndex + 1]
    let deadline = Date().addingTimeInterval(60)
    while !FileManager.default.fileExists(atPath: go), Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
    var options: [String: String] = [:]
    for pair in arguments.dropFirst(3) {
        guard let equals = pair.firstIndex(of: "=") else { continue }
        options[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
    }
    switch arguments[arguments.startIndex + 2] {
    case "sqlite":
        try migrate(try SQLiteDatabaseConfiguration(options["path"]!, busyTimeout: .seconds(30)))
    case "postgres":
        try migrate(try PostgresDatabaseConfiguration(parameters: options))
    #if MySQL
    case "mysql" where options["socket"] != nil:
        try migrate(try MySQLDatabaseConfiguration(database: options["database"]!, socket: options["socket"]!, username: options["user"],
                                                   password: options["password"]))
    case "mysql":
        try migrate(try MySQLDatabaseConfiguration(database: options["database"]!, host: options["host"]!, port: options["port"].flatMap { Int($0) },
                                                   username: options["user"], password: options["password"]))
    #endif
    case let backend:
        FileHandle.standardError.write(Data("crud-test-probe migrate: no backend \(backend) in this build\n".utf8))
        exit(2)
    }
default:
    let usage = "usage: crud-test-probe log file|console PATH return|exit, commit PATH, read-then-write PATH, or migrate GO BACKEND KEY=VALUE…\n"
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
