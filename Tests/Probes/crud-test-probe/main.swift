import CRUD
import CRUDSQLite
import Foundation

// A program the integration tests run as a child process, for what only a whole process shows:
// what happens at exit, and what survives a kill -9.
//
//   crud-test-probe log file PATH return|exit   six events to a log file, then end main that way
//   crud-test-probe log console - return|exit   the same on standard output
//   crud-test-probe commit PATH                 committed transactions until killed, each reported
//   crud-test-probe read-then-write PATH        counts Ledger rows, then tries to write one; reports both

struct Ledger: CRUDModel {
    let id: Int
    let transaction: Int
    let entry: Int
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
default:
    FileHandle.standardError.write(Data("usage: crud-test-probe log file|console PATH return|exit, commit PATH, or read-then-write PATH\n".utf8))
    exit(2)
}
