// The asynchronous form of every terminal operation. Most make the same operation as the synchronous
// form (`CRUDOperation`) and give it to the awaiting runner (`await executor.run`), which chooses the
// route: in the caller's task, waiting for the server without a thread, on a driver that executes
// without blocking (PostgreSQL, MySQL) where the operation can; else the blocking runner on a
// thread of the library's, or on the caller's own thread where the driver allows it
// (`CRUDExecutor.perform`). Inside `transaction { tx in … }` they run on the transaction's
// connection. Schema changes still choose between `perform` and their awaiting entries.
//
// The operations capture the chain and the caller's model values; the caller is suspended until
// they have run, so nothing else touches those values meanwhile.

extension SelectAble {
    /// Runs the query and reads all its results.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError`.
    @inlinable
    public func select() async throws -> Select<OverAllForm, Self> {
        guard plan.isJoinFree else {
            return Select(rows: try await executor.run(CRUDSnapshotRowsOperation<OverAllForm, DatabaseType.Configuration.Connection>(plan)).rows)
        }
        return Select(rows: try await executor.run(CRUDRowsOperation<OverAllForm, DatabaseType.Configuration.Connection>(plan)))
    }

    /// The query's results as an asynchronous sequence, read in batches as the loop asks for them:
    /// `for try await person in query.select() { … }`. Failures are thrown by the loop.
    @_disfavoredOverload
    public func select() -> CRUDAsyncRows<OverAllForm, DatabaseType.Configuration.Connection> {
        CRUDAsyncRows(executor: executor, plan: plan)
    }

    /// How many results `select()` would give.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`.
    @inlinable
    public func count() async throws -> Int {
        try await executor.run(CRUDQueryOperation.count(plan))
    }

    /// The first result, or `nil`.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError`.
    @inlinable
    public func first() async throws -> OverAllForm? {
        guard plan.isJoinFree else {
            return try await executor.run(CRUDSnapshotRowsOperation<OverAllForm, DatabaseType.Configuration.Connection>(
                plan, limit: plan.firstLimit)).rows.first
        }
        return try await executor.run(CRUDFirstRowOperation<OverAllForm, DatabaseType.Configuration.Connection>(plan))
    }
}

extension InsertAble {
    /// Inserts the rows with every column, in one transaction.
    /// - Throws: `CRUDSQLExeError` (nothing is inserted then), `CRUDEncoderError`.
    @discardableResult
    public func insert(_ instances: [InsertForm]) async throws -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        try await insertRows(instances) { nil }
    }

    /// Inserts one row with every column.
    /// - Throws: `CRUDSQLExeError` (nothing is inserted then), `CRUDEncoderError`.
    @discardableResult
    public func insert(_ instance: InsertForm) async throws -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        try await insertRows([instance]) { nil }
    }

    /// Inserts only the named columns; the others take their defaults.
    @discardableResult
    public func insert(_ instances: [InsertForm], setKeys: PartialKeyPath<InsertForm>, _ rest: PartialKeyPath<InsertForm>...) async throws
        -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        try await insertRows(instances) { try InsertForm.crudColumns([setKeys] + rest, for: "insert") }
    }

    /// Inserts one row with only the named columns; the others take their defaults.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, `CRUDEncoderError`.
    @discardableResult
    public func insert(_ instance: InsertForm, setKeys: PartialKeyPath<InsertForm>, _ rest: PartialKeyPath<InsertForm>...) async throws
        -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        try await insertRows([instance]) { try InsertForm.crudColumns([setKeys] + rest, for: "insert") }
    }

    /// Inserts every column but the named ones.
    @discardableResult
    public func insert(_ instances: [InsertForm], ignoreKeys: PartialKeyPath<InsertForm>, _ rest: PartialKeyPath<InsertForm>...) async throws
        -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        try await insertRows(instances) { try InsertForm.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert") }
    }

    /// Inserts one row without the named columns, which take their defaults (an id the database
    /// assigns).
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, `CRUDEncoderError`.
    @discardableResult
    public func insert(_ instance: InsertForm, ignoreKeys: PartialKeyPath<InsertForm>, _ rest: PartialKeyPath<InsertForm>...) async throws
        -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        try await insertRows([instance]) { try InsertForm.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert") }
    }

    /// Inserts `instances`, their `columns` (every column when `nil`) worked out inside the
    /// executor's boundary: in the caller's task where it can await the server, else as the
    /// synchronous form does, run by `perform`.
    @inlinable
    func insertRows(_ instances: [InsertForm], columns: @escaping () throws -> [Int]?) async throws
        -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        let operation = CRUDInsertOperation<InsertForm, InsertDatabase.Configuration.Connection, Void>(instances, columns: columns, returning: nil)
        return Insert(lastInsertId: try await insertionTable.executor.run(operation).lastInsertId)
    }
}

extension UpdateAble {
    /// Sets every column of the matching rows to `instance`'s values.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`.
    @discardableResult
    public func update(_ instance: OverAllForm) async throws -> Update<OverAllForm, Self> {
        try await updateRows(instance) { nil }
    }

    /// Sets only the named columns.
    @discardableResult
    public func update(_ instance: OverAllForm, setKeys: PartialKeyPath<OverAllForm>, _ rest: PartialKeyPath<OverAllForm>...) async throws
        -> Update<OverAllForm, Self> {
        try await updateRows(instance) { try OverAllForm.crudColumns([setKeys] + rest, for: "update") }
    }

    /// Sets only the columns `keys` names, a list made at run time.
    /// - Throws: as the synchronous form.
    @discardableResult
    public func update(_ instance: OverAllForm, setKeys keys: [PartialKeyPath<OverAllForm>]) async throws -> Update<OverAllForm, Self> {
        try await updateRows(instance) { try OverAllForm.crudColumns(keys, for: "update") }
    }

    /// Sets every column but the named ones.
    @discardableResult
    public func update(_ instance: OverAllForm, ignoreKeys: PartialKeyPath<OverAllForm>, _ rest: PartialKeyPath<OverAllForm>...) async throws
        -> Update<OverAllForm, Self> {
        try await updateRows(instance) { try OverAllForm.crudColumns(ignoring: [ignoreKeys] + rest, for: "update") }
    }

    /// Updates the matching rows' `columns` (every column when `nil`), worked out inside the
    /// executor's boundary: in the caller's task where it can await the server, else as the
    /// synchronous form does, run by `perform`.
    func updateRows(_ instance: OverAllForm, columns: @escaping () throws -> [Int]?) async throws -> Update<OverAllForm, Self> {
        let operation = CRUDWriteOperation<OverAllForm, DatabaseType.Configuration.Connection, Void>(update: plan, with: instance, columns: columns)
        return Update(changedRows: try await executor.run(operation).changedRows)
    }

    /// Updates the matching rows and returns `returning` of each.
    public func returning<R: CRUDValue>(_ returning: KeyPath<OverAllForm, R>, update instance: OverAllForm) async throws -> [R] {
        try await updateReturning(returning, instance) { nil }
    }

    /// Updates the named columns of the matching rows and returns `returning` of each updated row.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<OverAllForm, R>, update instance: OverAllForm,
                                        setKeys: PartialKeyPath<OverAllForm>, _ rest: PartialKeyPath<OverAllForm>...) async throws -> [R] {
        try await updateReturning(returning, instance) { try OverAllForm.crudColumns([setKeys] + rest, for: "update") }
    }

    /// Updates every column but the named ones of the matching rows and returns `returning` of each
    /// updated row.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<OverAllForm, R>, update instance: OverAllForm,
                                        ignoreKeys: PartialKeyPath<OverAllForm>, _ rest: PartialKeyPath<OverAllForm>...) async throws -> [R] {
        try await updateReturning(returning, instance) { try OverAllForm.crudColumns(ignoring: [ignoreKeys] + rest, for: "update") }
    }

    /// Updates the matching rows' `columns` (every column when `nil`), worked out inside the
    /// executor's boundary, and returns `keyPath` of each updated row: in the caller's task where
    /// the update can await the server, else on a connection's queue.
    private func updateReturning<R: CRUDValue>(_ keyPath: KeyPath<OverAllForm, R>, _ instance: OverAllForm,
                                               columns: @escaping () throws -> [Int]?) async throws -> [R] {
        try await executor.run(CRUDWriteOperation(update: plan, with: instance, columns: columns,
                                                  returning: .init(keyPath) { try R(crudRow: $0, column: 0) })).rows
    }
}

extension DeleteAble {
    /// Deletes the matching rows.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`.
    @discardableResult
    public func delete() async throws -> Delete<OverAllForm, Self> {
        let operation = CRUDWriteOperation<OverAllForm, DatabaseType.Configuration.Connection, Void>(delete: plan)
        return Delete(changedRows: try await executor.run(operation).changedRows)
    }
}

extension Table {
    /// Creates an index on the columns if it does not exist yet.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`.
    @discardableResult
    public func index(unique: Bool = false, _ keys: PartialKeyPath<A>...) async throws -> Index<A, Self> {
        try await executor.perform(.write) { try self.index(unique: unique, keys: keys) }
    }

    /// Inserts the named columns (all when `columns` is `nil`) and returns what `read` reads from
    /// each stored row (the column `returning` names, or the whole row): in the caller's task where
    /// it can await the server, else on a connection's queue.
    private func insertReturning<T>(_ instances: [A], columns: @escaping () throws -> [Int]?, returning: PartialKeyPath<A>?,
                                    _ read: @escaping (D.Configuration.Connection.Statement) throws -> T) async throws -> [T] {
        try await executor.run(CRUDInsertOperation(instances, columns: columns, returning: .init(returning, read: read))).rows
    }

    /// Inserts `instances` and returns the stored value of `returning` for each, in order.
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instances: [A]) async throws -> [R] {
        try await insertReturning(instances, columns: { nil }, returning: returning) { try R(crudRow: $0, column: 0) }
    }

    /// Inserts one row with every column and returns its `returning` value as stored.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instance: A) async throws -> R {
        try await self.returning(returning, insert: [instance])[0]
    }

    /// Inserts only the named columns (the others take their defaults) and returns `returning`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instances: [A],
                                        setKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) async throws -> [R] {
        try await insertReturning(instances, columns: { try A.crudColumns([setKeys] + rest, for: "insert") }, returning: returning) {
            try R(crudRow: $0, column: 0)
        }
    }

    /// Inserts one row with only the named columns and returns its `returning` value as stored.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instance: A,
                                        setKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) async throws -> R {
        try await insertReturning([instance], columns: { try A.crudColumns([setKeys] + rest, for: "insert") }, returning: returning) {
            try R(crudRow: $0, column: 0)
        }[0]
    }

    /// Inserts every column but the named ones and returns `returning`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instances: [A],
                                        ignoreKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) async throws -> [R] {
        try await insertReturning(instances, columns: { try A.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert") },
                                  returning: returning) { try R(crudRow: $0, column: 0) }
    }

    /// Inserts one row without the named columns and returns its `returning` value as stored (an
    /// id the database assigns).
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instance: A,
                                        ignoreKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) async throws -> R {
        try await insertReturning([instance], columns: { try A.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert") },
                                  returning: returning) { try R(crudRow: $0, column: 0) }[0]
    }

    /// Inserts `instances` and returns the stored rows, database defaults filled in, in order.
    public func returning(insert instances: [A]) async throws -> [A] {
        try await insertReturning(instances, columns: { nil }, returning: nil) { try A(crudRow: $0) }
    }

    /// Inserts one row and returns it as stored, the database's defaults filled in.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning(insert instance: A) async throws -> A {
        try await returning(insert: [instance])[0]
    }

    /// Inserts the rows with only the named columns and returns them as stored, in input order.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning(insert instances: [A], setKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) async throws -> [A] {
        try await insertReturning(instances, columns: { try A.crudColumns([setKeys] + rest, for: "insert") },
                                  returning: nil) { try A(crudRow: $0) }
    }

    /// Inserts the rows without the named columns and returns them as stored (the database's
    /// defaults and ids filled in), in input order.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning(insert instances: [A], ignoreKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) async throws -> [A] {
        try await insertReturning(instances, columns: { try A.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert") },
                                  returning: nil) { try A(crudRow: $0) }
    }

    /// Inserts one row with only the named columns and returns it as stored.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning(insert instance: A, setKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) async throws -> A {
        try await insertReturning([instance], columns: { try A.crudColumns([setKeys] + rest, for: "insert") },
                                  returning: nil) { try A(crudRow: $0) }[0]
    }

    /// Inserts one row without the named columns and returns it as stored, the database's defaults
    /// and id filled in.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning(insert instance: A, ignoreKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) async throws -> A {
        try await insertReturning([instance], columns: { try A.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert") },
                                  returning: nil) { try A(crudRow: $0) }[0]
    }
}

extension Database {
    /// Creates the table of `type`, and unless `.shallow` the tables of its joined types.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`.
    @discardableResult
    public func create<A: CRUDModel>(_ type: A.Type, primaryKey: PartialKeyPath<A>? = nil,
                                     policy: TableCreatePolicy = .defaultPolicy) async throws -> Create<A, Database<C>> {
        try await executor.perform(.write) { try self.create(type, primaryKey: primaryKey, policy: policy) }
    }

    /// Compares the database's tables with `schema`, the frozen schema a migration left.
    /// - Throws: `CRUDSchemaMismatchError` listing every difference; `CRUDSQLExeError`.
    public func checkSchema(_ schema: CRUDSchema) async throws {
        try await executor.perform(.read) { try self.checkSchema(schema) }
    }

    /// Compares the tables of `models` (and of the models they join) with their generated schemas.
    /// - Throws: `CRUDSchemaMismatchError` listing every difference; `CRUDSQLExeError`.
    public func checkSchema(_ models: [any CRUDModel.Type]) async throws {
        try await executor.perform(.read) { try self.checkSchema(models) }
    }

    /// Runs one SQL statement; rows it returns are discarded.
    /// - Throws: `CRUDSQLExeError`.
    public func sql(_ sql: String, bindings: Bindings = []) async throws {
        try await executor.run(CRUDRawOperation(sql, bindings, reader: CRUDClosureReader(Self.discardRows)))
    }

    /// Runs one SQL statement and reads every row as `type`, matching columns by name.
    /// - Throws: `CRUDSQLExeError`, `CRUDDecoderError`.
    public func sql<A: CRUDModel>(_ sql: String, bindings: Bindings = [], _ type: A.Type) async throws -> [A] {
        try await executor.run(CRUDRawOperation(sql, bindings, reader: CRUDClosureReader { try Self.rows($0, as: A.self) }))
    }
}

extension SelectAble {
    /// The sum of a numeric column, `nil` over no rows.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError`.
    public func sum<Value: CRUDValue & Numeric>(_ keyPath: KeyPath<OverAllForm, Value>) async throws -> Value? {
        try await aggregate(.sum, keyPath, as: Value.self)
    }

    /// The sum of an optional column's non-NULL values, `nil` when there are none.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, `CRUDDecoderError`.
    public func sum<Value: CRUDValue & Numeric>(_ keyPath: KeyPath<OverAllForm, Value?>) async throws -> Value? {
        try await aggregate(.sum, keyPath, as: Value.self)
    }

    /// The smallest value of a column, `nil` over no rows.
    public func min<Value: CRUDValue & Comparable>(_ keyPath: KeyPath<OverAllForm, Value>) async throws -> Value? {
        try await aggregate(.min, keyPath, as: Value.self)
    }

    /// The least value of an optional column's non-NULL values, `nil` when there are none.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, `CRUDDecoderError`.
    public func min<Value: CRUDValue & Comparable>(_ keyPath: KeyPath<OverAllForm, Value?>) async throws -> Value? {
        try await aggregate(.min, keyPath, as: Value.self)
    }

    /// The largest value of a column, `nil` over no rows.
    public func max<Value: CRUDValue & Comparable>(_ keyPath: KeyPath<OverAllForm, Value>) async throws -> Value? {
        try await aggregate(.max, keyPath, as: Value.self)
    }

    /// The greatest value of an optional column's non-NULL values, `nil` when there are none.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, `CRUDDecoderError`.
    public func max<Value: CRUDValue & Comparable>(_ keyPath: KeyPath<OverAllForm, Value?>) async throws -> Value? {
        try await aggregate(.max, keyPath, as: Value.self)
    }

    /// The mean of a numeric column, `nil` over no rows.
    public func avg<Value: CRUDValue & Numeric>(_ keyPath: KeyPath<OverAllForm, Value>) async throws -> Double? {
        try await aggregate(.avg, keyPath, as: Double.self)
    }

    /// The average of an optional column's non-NULL values, `nil` when there are none.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, `CRUDDecoderError`.
    public func avg<Value: CRUDValue & Numeric>(_ keyPath: KeyPath<OverAllForm, Value?>) async throws -> Double? {
        try await aggregate(.avg, keyPath, as: Double.self)
    }

    /// Whether the query has any result.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`.
    public func exists() async throws -> Bool {
        try await executor.run(CRUDQueryOperation.exists(plan))
    }

    /// The number of rows for each value of a column (`GROUP BY`).
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError`.
    public func count<Key: CRUDValue & Hashable>(groupedBy key: KeyPath<OverAllForm, Key>) async throws -> [Key: Int] {
        try await grouped(by: key, .count, of: nil, as: Int.self)
    }

    /// The sum of a numeric column for each value of another (`GROUP BY`).
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError` (also when a sum does not fit), `CRUDDecoderError`.
    public func sum<Value: CRUDValue & Numeric, Key: CRUDValue & Hashable>(_ keyPath: KeyPath<OverAllForm, Value>,
                                                                          groupedBy key: KeyPath<OverAllForm, Key>) async throws -> [Key: Value] {
        try await grouped(by: key, .sum, of: keyPath, as: Value.self)
    }

    private func aggregate<Result: CRUDValue>(_ function: CRUDAggregate, _ keyPath: AnyKeyPath, as result: Result.Type) async throws -> Result? {
        try await executor.run(aggregateOperation(function, keyPath, as: result))
    }

    private func grouped<Key: CRUDValue & Hashable, Result: CRUDValue>(by key: AnyKeyPath, _ function: CRUDAggregate, of keyPath: AnyKeyPath?,
                                                                      as result: Result.Type) async throws -> [Key: Result] {
        try await executor.run(groupedOperation(by: key, function, of: keyPath, as: result))
    }
}

extension Table {
    /// Inserts the rows, or handles conflicts with stored rows as `action` says; see the synchronous form.
    /// - Returns: how many rows were inserted or updated.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError` (`.conflictTargetNotUnique` for a target that is not unique), `CRUDEncoderError`.
    @discardableResult
    public func upsert(_ instances: [A], onConflict target: PartialKeyPath<A>, _ moreTarget: PartialKeyPath<A>...,
                       do action: CRUDConflictAction<A> = .replace) async throws -> Int {
        try await upsert(instances, target: [target] + moreTarget, action: action)
    }

    /// Inserts one row, or on a conflict with `target` (the primary key or a unique constraint) does
    /// `action`; returns how many rows were inserted or changed.
    /// - Throws: `CRUDSQLExeError` with kind `.conflictTargetNotUnique` when `target` is not a key;
    ///   `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`.
    @discardableResult
    public func upsert(_ instance: A, onConflict target: PartialKeyPath<A>, _ moreTarget: PartialKeyPath<A>...,
                       do action: CRUDConflictAction<A> = .replace) async throws -> Int {
        try await upsert([instance], target: [target] + moreTarget, action: action)
    }
}
