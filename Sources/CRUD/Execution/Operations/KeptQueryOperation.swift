/// A prepared query's run (`CRUDPreparedQuery`): the statement each connection keeps for the
/// query's variant, bound with the run's key, read by the reader.
@usableFromInline
struct CRUDKeptQueryOperation<Model: CRUDModel, Key: CRUDValue, Reader: CRUDStatementReader>: CRUDOperation {
    @usableFromInline typealias Connection = Reader.Connection

    @usableFromInline let query: CRUDPreparedQuery<Model, Key, Connection>
    /// Whether the run reads the first row only (the query's `first` variant), else every row.
    @usableFromInline let firstOnly: Bool
    @usableFromInline let key: Key
    @usableFromInline let reader: Reader

    @inlinable
    init(_ query: CRUDPreparedQuery<Model, Key, Connection>, firstOnly: Bool, key: Key, reader: Reader) {
        self.query = query
        self.firstOnly = firstOnly
        self.key = key
        self.reader = reader
    }

    @inlinable var access: CRUDAccess { .read }

    @inlinable
    mutating func next(_ executor: CRUDExecutor<Connection>, on session: CRUDSession<Connection>) throws -> CRUDStep<Reader.Value> {
        .kept(firstOnly ? query.first.slot : query.all.slot)
    }

    @inlinable
    mutating func bind(_ binder: inout Connection.Statement, on session: CRUDSession<Connection>) throws {
        try query.bind(key, first: firstOnly, to: &binder)
    }

    @inlinable
    mutating func read(_ statement: Connection.Statement, on session: CRUDSession<Connection>) throws -> Reader.Value? {
        try reader.read(statement)
    }
}
