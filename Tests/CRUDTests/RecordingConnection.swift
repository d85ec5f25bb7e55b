@testable import CRUD
import Foundation

/// A dialect unlike SQLite's, so tests see that the engine asks the dialect.
struct TestDialect: CRUDDialect {
    var name: String { "Test" }

    func columnType(_ type: CRUDColumnType) -> String {
        switch type {
        case let .integer(bits, signed): "INT\(bits)\(signed ? "" : "U")"
        case let .float(bits): "FLOAT\(bits)"
        case .bool: "BOOL"
        case .text: "TEXT"
        case .blob: "BYTES"
        case .date: "TIME"
        case .uuid: "UUID"
        case .json: "JSON"
        }
    }

    func placeholder(_ position: Int) -> String { "$\(position + 1)" }

    func limitClause(max: String?, skip: String?) -> String {
        [max.map { "LIMIT \($0)" }, skip.map { "OFFSET \($0)" }].compactMap { $0 }.joined(separator: " ")
    }

    func beginTransaction(_ mode: TransactionMode) throws -> String { "BEGIN" }

    func zeroValue(_ type: CRUDColumnType) -> String { "ZERO" }

    func rowsPerInsert(columns: Int) -> Int { 2 }
}

/// A connection that records every statement and its bindings instead of running them. Queries
/// return the rows queued for them (none by default; `COUNT` queries return 0).
final class RecordingConnection: CRUDConnection {
    struct Execution: Equatable {
        var sql: String
        var bindings: [CRUDDatabaseValue]
    }

    let dialect: any CRUDDialect = TestDialect()
    let isUsable = true
    /// Follows the recorded BEGIN, COMMIT and ROLLBACK, as a database would.
    private(set) var transactionStatus = CRUDTransactionStatus.none
    private(set) var executions: [Execution] = []
    var queuedRows: [[CRUDDatabaseValue]] = []

    func prepare(_ sql: String) throws -> RecordingStatement {
        let rows = sql.hasPrefix("SELECT COUNT(*)") ? [[CRUDDatabaseValue.integer(0)]] : queuedRows
        queuedRows = []
        return RecordingStatement(sql: sql, rows: rows)
    }

    func prepareOwned(_ sql: String) throws -> RecordingStatement {
        try prepare(sql)
    }

    func discard(_ statement: RecordingStatement) {}

    func release(_ statement: RecordingStatement) {
        let count = statement.bindings.keys.max().map { $0 + 1 } ?? 0
        let bindings = (0 ..< count).map { statement.bindings[$0] ?? .null }
        executions.append(Execution(sql: statement.sql, bindings: bindings))
    }

    func execute(_ sql: String) throws {
        executions.append(Execution(sql: sql, bindings: []))
        if sql == "BEGIN" { transactionStatus = .open }
        if sql == "COMMIT" || sql == "ROLLBACK" { transactionStatus = .none }
    }

    func reconnect() throws {}

    func lastInsertId() throws -> Int? { nil }

    func columns(ofTable table: String) throws -> [CRUDDatabaseColumn]? { nil }

    /// The SQL of every execution, in order.
    var statements: [String] { executions.map(\.sql) }
}

final class RecordingStatement: CRUDStatement {
    let sql: String
    var bindings: [Int: CRUDDatabaseValue] = [:]
    private var rows: [[CRUDDatabaseValue]]
    private var current: [CRUDDatabaseValue] = []

    init(sql: String, rows: [[CRUDDatabaseValue]]) {
        self.sql = sql
        self.rows = rows
    }

    func step() throws -> Bool {
        guard !rows.isEmpty else { return false }
        current = rows.removeFirst()
        return true
    }

    func reset() throws {}
    var resultColumnCount: Int { current.count }
    func resultColumnName(_ column: Int) -> String { "c\(column)" }
    var changedRows: Int { 0 }

    func bindNull(at position: Int) throws { bindings[position] = .null }
    func bindInt64(_ value: Int64, at position: Int) throws { bindings[position] = .integer(value) }
    func bindDouble(_ value: Double, at position: Int) throws { bindings[position] = .real(value) }
    func bindText(_ value: String, at position: Int) throws { bindings[position] = .text(value) }
    func bindBlob(_ value: [UInt8], at position: Int) throws { bindings[position] = .blob(value) }
    func bindData(_ value: Data, at position: Int) throws { bindings[position] = .blob(Array(value)) }
    func bindBool(_ value: Bool, at position: Int) throws { bindings[position] = .bool(value) }
    func bindDate(_ value: Date, at position: Int) throws { bindings[position] = .date(value) }
    func bindUUID(_ value: UUID, at position: Int) throws { bindings[position] = .uuid(value) }

    private struct Mismatch: Error {}

    func isNull(_ column: Int) -> Bool { current[column] == .null }
    func readInt64(_ column: Int) throws -> Int64 { if case let .integer(v) = current[column] { v } else { throw Mismatch() } }
    func readDouble(_ column: Int) throws -> Double { if case let .real(v) = current[column] { v } else { throw Mismatch() } }
    func readText(_ column: Int) throws -> String { if case let .text(v) = current[column] { v } else { throw Mismatch() } }
    func readBlob(_ column: Int) throws -> [UInt8] { if case let .blob(v) = current[column] { v } else { throw Mismatch() } }
    func readData(_ column: Int) throws -> Data { Data(try readBlob(column)) }
    func readBool(_ column: Int) throws -> Bool { if case let .bool(v) = current[column] { v } else { throw Mismatch() } }
    func readDate(_ column: Int) throws -> Date { if case let .date(v) = current[column] { v } else { throw Mismatch() } }
    func readUUID(_ column: Int) throws -> UUID { if case let .uuid(v) = current[column] { v } else { throw Mismatch() } }
}

/// `@unchecked Sendable`: each test makes its own and uses it from its own thread; the executor's
/// single session (with its lock) is the only other path to the connection.
final class RecordingConfiguration: DatabaseConfigurationProtocol, @unchecked Sendable {
    let connection = RecordingConnection()
    let executor: CRUDExecutor<RecordingConnection>

    init() {
        executor = try! CRUDExecutor(layout: .single, first: connection, timeout: .seconds(1), describe: "recording") { _ in
            RecordingConnection()
        }
    }
}

func recordingDatabase() -> Database<RecordingConfiguration> {
    CRUDLogging.queryLogDestinations = []
    CRUDLogging.errorLogDestinations = []
    return Database(configuration: RecordingConfiguration())
}
