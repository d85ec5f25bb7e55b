@_spi(CRUDDriver) import CRUD
import Foundation

/// A statement of a `RecordingConnection`: keeps what is bound and returns the rows queued for it.
/// A read of a value of another kind than the one queued is a `CRUDDecoderError`.
public final class RecordingStatement: CRUDStatement {
    @_spi(CRUDDriver) public let sql: String
    /// The values bound so far, by parameter position (0-based).
    public private(set) var bindings: [Int: CRUDDatabaseValue] = [:]
    private var rows: [[CRUDDatabaseValue]]
    private var current: [CRUDDatabaseValue] = []

    /// What a catalog query returns, by the values bound to it, asked at the first step.
    private var answer: (([CRUDDatabaseValue]) -> [[CRUDDatabaseValue]])?

    init(sql: String, rows: [[CRUDDatabaseValue]], answer: (([CRUDDatabaseValue]) -> [[CRUDDatabaseValue]])? = nil) {
        self.sql = sql
        self.rows = rows
        self.answer = answer
    }

    /// The connection of a statement kept across runs (`prepareOwned`), which records each run.
    weak var owner: RecordingConnection?
    /// Whether this run has taken its rows from the connection's queue.
    private var hasRows = true

    public func step() throws -> Bool {
        if let answer {
            rows = answer(boundValues)
            self.answer = nil
        }
        if !hasRows, let owner {
            rows = owner.takeRows(for: sql)
            hasRows = true
        }
        guard !rows.isEmpty else { return false }
        current = rows.removeFirst()
        return true
    }

    /// Ends a run of a kept statement: it is recorded, and the next run binds and takes rows anew.
    public func reset() throws {
        guard let owner else { return }
        owner.recordRun(of: self)
        bindings = [:]
        rows = []
        current = []
        hasRows = false
    }
    @_spi(CRUDDriver) public var resultColumnCount: Int { current.count }
    @_spi(CRUDDriver) public func resultColumnName(_ column: Int) -> String { "c\(column)" }
    public var changedRows: Int { 0 }

    public func bindNull(at position: Int) throws { bindings[position] = .null }
    public func bindInt64(_ value: Int64, at position: Int) throws { bindings[position] = .integer(value) }
    public func bindReal(_ value: Double, at position: Int) throws { bindings[position] = .real(value) }
    public func bindText(_ value: String, at position: Int) throws { bindings[position] = .text(value) }
    public func bindBlob(_ value: [UInt8], at position: Int) throws { bindings[position] = .blob(value) }
    public func bindData(_ value: Data, at position: Int) throws { bindings[position] = .blob(Array(value)) }
    public func bindBool(_ value: Bool, at position: Int) throws { bindings[position] = .bool(value) }
    public func bindDate(_ value: Date, at position: Int) throws { bindings[position] = .date(value) }
    public func bindUUID(_ value: UUID, at position: Int) throws { bindings[position] = .uuid(value) }

    /// The bound values in parameter order, `.null` for a position left unbound.
    var boundValues: [CRUDDatabaseValue] {
        let count = bindings.keys.max().map { $0 + 1 } ?? 0
        return (0 ..< count).map { bindings[$0] ?? .null }
    }

    /// The queued value of `column` in the current row; NULL past the row's end.
    private func value(_ column: Int) -> CRUDDatabaseValue {
        current.indices.contains(column) ? current[column] : .null
    }

    private func mismatch(_ column: Int, _ wanted: String) -> CRUDDecoderError {
        decodingError(column, "\(value(column)) queued where \(wanted) was read")
    }

    public func isNull(_ column: Int) -> Bool { value(column) == .null }
    public func readInt64(_ column: Int) throws -> Int64 { if case let .integer(v) = value(column) { v } else { throw mismatch(column, "an integer") } }
    public func readReal(_ column: Int) throws -> Double { if case let .real(v) = value(column) { v } else { throw mismatch(column, "a real") } }
    public func readText(_ column: Int) throws -> String { if case let .text(v) = value(column) { v } else { throw mismatch(column, "text") } }
    public func readBlob(_ column: Int) throws -> [UInt8] { if case let .blob(v) = value(column) { v } else { throw mismatch(column, "a blob") } }
    public func readData(_ column: Int) throws -> Data { Data(try readBlob(column)) }
    public func readBool(_ column: Int) throws -> Bool { if case let .bool(v) = value(column) { v } else { throw mismatch(column, "a bool") } }
    public func readDate(_ column: Int) throws -> Date { if case let .date(v) = value(column) { v } else { throw mismatch(column, "a date") } }
    public func readUUID(_ column: Int) throws -> UUID { if case let .uuid(v) = value(column) { v } else { throw mismatch(column, "a UUID") } }
}
