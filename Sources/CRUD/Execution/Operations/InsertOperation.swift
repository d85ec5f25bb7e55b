/// An insert of a model's rows: as many rows to a statement as the dialect takes (one each where
/// every row returns what the caller asked for), the statements in one transaction where there are
/// several (one statement is atomic by itself), and the ids observers need returned with them. Its
/// result is a reader of the last id the database made (`Insert.lastInsertId()`) and the returned
/// rows as `read` reads them.
@usableFromInline
struct CRUDInsertOperation<Model: CRUDModel, Connection: CRUDConnection, Returned>: CRUDOperation {
    /// What the caller gets: the last insert id's reader and the returned rows.
    @usableFromInline typealias Result = (lastInsertId: () throws -> Int?, rows: [Returned])

    /// What an insert that returns values of each stored row returns: the column `keyPath` names,
    /// or the whole row when it is `nil`, as `read` reads it.
    @usableFromInline
    struct Returning {
        @usableFromInline let keyPath: PartialKeyPath<Model>?
        @usableFromInline let read: (Connection.Statement) throws -> Returned

        @inlinable
        init(_ keyPath: PartialKeyPath<Model>?, read: @escaping (Connection.Statement) throws -> Returned) {
            self.keyPath = keyPath
            self.read = read
        }
    }

    @usableFromInline let instances: [Model]
    /// The caller's columns (every column when `nil`), or the mistake found naming them: thrown
    /// inside the runner's boundary.
    @usableFromInline let requested: Swift.Result<[Int]?, any Error>
    @usableFromInline let returning: Returning?

    // Decided before the first statement.
    @usableFromInline var columns: [Int]?
    @usableFromInline var returned: [Int] = []
    @usableFromInline var idColumn = 0
    @usableFromInline var rows: [Model] = []
    @usableFromInline var width = 0
    @usableFromInline var perStatement = 1
    @usableFromInline var capture = CRUDChangeCapture(observed: false, idColumn: nil)
    // Where the insert is.
    @usableFromInline var started = false
    @usableFromInline var inTransaction = false
    @usableFromInline var first = 0
    @usableFromInline var count = 0
    @usableFromInline var sql = ""
    @usableFromInline var results: [Returned] = []
    @usableFromInline var lastInsertId: (() throws -> Int?)?

    /// Inserts `instances`, their `columns` (worked out inside the runner's boundary; every column
    /// when `nil`), each returning what `returning` says when it is given.
    @inlinable
    init(_ instances: [Model], columns: () throws -> [Int]?, returning: Returning?) {
        self.instances = instances
        requested = Swift.Result { try columns() }
        self.returning = returning
    }

    @inlinable var access: CRUDAccess { .write }

    /// In the caller's task only where the insert returns the ids observers need.
    @inlinable
    func canAwaitServer(on executor: CRUDExecutor<Connection>) -> Bool {
        executor.dialect.canReturn(from: .insert)
    }

    @usableFromInline
    mutating func settle(_ executor: CRUDExecutor<Connection>) throws -> Result? {
        if let returning {
            try executor.dialect.requireReturning(from: .insert)
            returned = try returning.keyPath.map { try Model.crudColumns([$0], for: "returning") } ?? Array(Model.crudSchema.columns.indices)
            // The id observers need comes after the returned columns.
            idColumn = returned.count
        }
        columns = Model.crudColumns(stamping: try requested.get(), for: .insert)
        return instances.isEmpty ? ({ nil }, []) : nil
    }

    @inlinable
    mutating func next(_ executor: CRUDExecutor<Connection>, on session: CRUDSession<Connection>) throws -> CRUDStep<Result> {
        if !started {
            started = true
            rows = Model.crudStampedForInsert(instances)
            width = columns?.count ?? Model.crudSchema.columns.count
            perStatement = returning != nil || width == 0 ? 1 : max(1, min(executor.dialect.rowsPerInsert(columns: width), rows.count))
            capture = session.changeCapture(for: Model.crudSchema, writing: .insert)
            results.reserveCapacity(returning == nil ? 0 : rows.count)
            if rows.count > perStatement {
                inTransaction = true
                return .begin(.default)
            }
        }
        if first < rows.count {
            count = min(perStatement, rows.count - first)
            let text = try executor.render(.insert(Model.crudSchema, columns: columns, rows: count,
                                                   returning: returning == nil ? capture.returning : returned + capture.returning))
            sql = text.sql
            return .statement(text)
        }
        if inTransaction {
            inTransaction = false
            return .commit
        }
        if lastInsertId == nil { lastInsertId = executor.lastInsertId(after: session) }
        return .finished((lastInsertId!, results))
    }

    @inlinable
    mutating func bind(_ binder: inout Connection.Statement, on session: CRUDSession<Connection>) throws {
        for inStatement in 0 ..< count {
            try rows[first + inStatement].crudBind(columns: columns, to: &binder, from: inStatement * width)
        }
    }

    @inlinable
    mutating func read(_ statement: Connection.Statement, on session: CRUDSession<Connection>) throws -> Result? {
        if let returning {
            try session.stepInsert(statement, rows: count, in: Model.crudSchema.name, capture: capture, idColumn: idColumn, returnsRows: true,
                                   sql: sql) { results.append(try returning.read($0)) }
        } else {
            try session.stepInsert(statement, rows: count, in: Model.crudSchema.name, capture: capture, idColumn: 0, returnsRows: false,
                                   sql: sql) { _ in }
        }
        first += count
        return nil
    }

    /// A full statement's rows are followed by as many again: the same statement runs once more.
    @inlinable var runsAgain: Bool {
        mutating get { count == perStatement && rows.count - first >= perStatement }
    }
}
