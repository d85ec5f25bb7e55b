/// An UPDATE or a DELETE of the rows a query matches, and what observers learn of it: the ids of the
/// rows it changes, returned by the statement where the database can; selected first, locked, in a
/// transaction with the write, where it cannot return them (MySQL's UPDATE); or else that the
/// table changed. An update that returns a column of each row it changes reads it with `read`.
@usableFromInline
struct CRUDWriteOperation<Model: CRUDModel, Connection: CRUDConnection, Returned>: CRUDOperation {
    /// What the caller gets: the number of rows changed and the returned rows.
    @usableFromInline typealias Result = (changedRows: Int, rows: [Returned])

    /// What an update that returns a column of each changed row returns, as `read` reads it.
    @usableFromInline
    struct Returning {
        @usableFromInline let keyPath: PartialKeyPath<Model>
        @usableFromInline let read: (Connection.Statement) throws -> Returned

        @inlinable
        init(_ keyPath: PartialKeyPath<Model>, read: @escaping (Connection.Statement) throws -> Returned) {
            self.keyPath = keyPath
            self.read = read
        }
    }

    @usableFromInline let kind: CRUDChangeKind
    /// The rows written.
    @usableFromInline let query: CRUDQueryPlan
    /// The update's values, its timestamps set; `nil` for a delete.
    @usableFromInline let instance: Model?
    /// The update's columns (every column when `nil`), or the mistake found naming them.
    @usableFromInline let requested: Swift.Result<[Int]?, any Error>
    @usableFromInline let returning: Returning?

    @usableFromInline var columns: [Int]?
    @usableFromInline var returned: [Int] = []
    @usableFromInline var capture = CRUDChangeCapture(observed: false, idColumn: nil)
    @usableFromInline var started = false
    /// The ids selected before the write, where the write cannot return them; `nil` otherwise.
    @usableFromInline var selectedIDs: [Int]?
    @usableFromInline var selecting = false
    @usableFromInline var written = false
    @usableFromInline var changedRows = 0
    @usableFromInline var results: [Returned] = []

    /// Updates the rows `query` matches with `instance`'s `columns` (worked out inside the runner's
    /// boundary; every column when `nil`), returning what `returning` says when it is given.
    @usableFromInline
    init(update query: CRUDQueryPlan, with instance: Model, columns: () throws -> [Int]?, returning: Returning? = nil) {
        kind = .update
        self.query = query
        self.instance = instance.crudStampedForUpdate()
        requested = Swift.Result { try columns() }
        self.returning = returning
    }

    /// Deletes the rows `query` matches.
    @inlinable
    init(delete query: CRUDQueryPlan) where Returned == Void {
        kind = .delete
        self.query = query
        instance = nil
        requested = .success(nil)
        returning = nil
    }

    @inlinable var access: CRUDAccess { .write }

    /// In the caller's task only where the write returns the ids observers need.
    @inlinable
    func canAwaitServer(on executor: CRUDExecutor<Connection>) -> Bool {
        executor.dialect.canReturn(from: kind)
    }

    @usableFromInline
    mutating func settle(_ executor: CRUDExecutor<Connection>) throws -> Result? {
        if let returning {
            try executor.dialect.requireReturning(from: .update)
            returned = try Model.crudColumns([returning.keyPath], for: "returning")
        }
        if kind == .update { columns = Model.crudColumns(stamping: try requested.get(), for: .update) }
        return nil
    }

    @usableFromInline
    mutating func next(_ executor: CRUDExecutor<Connection>, on session: CRUDSession<Connection>) throws -> CRUDStep<Result> {
        if !started {
            started = true
            capture = session.changeCapture(for: Model.crudSchema, writing: kind)
            if kind == .update, returning == nil, capture.selectedIDColumn != nil {
                selecting = true
                return .begin(.default)
            }
        }
        if selecting, selectedIDs == nil, let key = capture.selectedIDColumn {
            selectedIDs = []
            let ids = try executor.render(.column(query, key))
            return .statement(CRUDStatementText(ids.sql + executor.dialect.rowLock(.update), ids.parameters, firstParameter: ids.firstParameter))
        }
        if !written {
            written = true
            let writing = selecting ? CRUDChangeCapture.unobserved : capture
            let plan: CRUDStatementPlan = switch kind {
            case .delete: .delete(query, returning: writing.returning)
            default: .update(query, columns: columns, returning: returned + writing.returning)
            }
            return .statement(try executor.render(plan))
        }
        if selecting {
            selecting = false
            session.record(kind, in: Model.crudSchema.name, ids: selectedIDs ?? [])
            return .commit
        }
        return .finished((changedRows, results))
    }

    @inlinable
    mutating func bind(_ binder: inout Connection.Statement, on session: CRUDSession<Connection>) throws {
        // The selected ids' statement binds its own values only.
        guard let instance, written else { return }
        try instance.crudBind(columns: columns, to: &binder)
    }

    @inlinable
    mutating func read(_ statement: Connection.Statement, on session: CRUDSession<Connection>) throws -> Result? {
        guard written else {
            while try statement.step() { selectedIDs?.append(Int(try statement.readInt64(0))) }
            return nil
        }
        let writing = selectedIDs == nil ? capture : .unobserved
        if let returning {
            try session.step(statement, writing: kind, in: Model.crudSchema.name, capture: writing, idColumn: returned.count) {
                results.append(try returning.read($0))
            }
        } else {
            try session.step(statement, writing: kind, in: Model.crudSchema.name, capture: writing)
        }
        changedRows = statement.changedRows
        return nil
    }
}
