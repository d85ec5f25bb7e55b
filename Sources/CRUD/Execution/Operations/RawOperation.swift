/// The user's own statement with its bindings, on a write connection, whose rows the reader reads;
/// refused afterwards when it opened or ended a transaction behind the session's back.
@usableFromInline
struct CRUDRawOperation<Reader: CRUDStatementReader>: CRUDOperation {
    @usableFromInline typealias Connection = Reader.Connection

    @usableFromInline let sql: String
    @usableFromInline let bindings: [CRUDDatabaseValue]
    @usableFromInline let reader: Reader
    @usableFromInline var value: Reader.Value?

    @inlinable
    init(_ sql: String, _ bindings: [CRUDDatabaseValue], reader: Reader) {
        self.sql = sql
        self.bindings = bindings
        self.reader = reader
    }

    @inlinable var access: CRUDAccess { .write }

    @inlinable
    mutating func next(_ executor: CRUDExecutor<Connection>, on session: CRUDSession<Connection>) throws -> CRUDStep<Reader.Value> {
        // Refused once the statement is done, so that it is logged and measured as it ran.
        if let value {
            try session.checkRawTransactionControl(sql)
            return .finished(value)
        }
        return .statement(try executor.render(.raw(sql, bindings)))
    }

    @inlinable
    mutating func read(_ statement: Connection.Statement, on session: CRUDSession<Connection>) throws -> Reader.Value? {
        value = try reader.read(statement)
        return nil
    }
}
