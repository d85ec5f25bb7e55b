/// The result of an insert.
public struct Insert<Form: CRUDModel, Parent> {
    @usableFromInline let readLastInsertId: () throws -> Int?

    @inlinable
    init(lastInsertId: @escaping () throws -> Int?) {
        readLastInsertId = lastInsertId
    }

    /// The id the database gave the last row inserted by this insert's connection, where it gives
    /// one: SQLite's rowid (the value of an `INTEGER PRIMARY KEY` column); PostgreSQL's `lastval()`,
    /// the last value an identity column or sequence produced in that session (`nil` when none has).
    /// - Throws: `CRUDSQLExeError` when the database cannot be asked, or when the connection has run
    ///   other statements since the insert (call it right after the insert).
    public func lastInsertId() throws -> Int? {
        // The closure the insert made reports its own errors.
        try readLastInsertId()
    }
}

/// The result of an update.
public struct Update<Form: CRUDModel, Parent> {
    /// How many rows the update changed.
    public let changedRows: Int
}

/// The result of a delete.
public struct Delete<Form: CRUDModel, Parent> {
    /// How many rows the delete removed.
    public let changedRows: Int
}

extension CRUDModel {
    /// The columns key paths name, in table order, each once.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column.
    @usableFromInline
    static func crudColumns(_ keyPaths: [PartialKeyPath<Self>], for operation: String) throws -> [Int] {
        guard !keyPaths.isEmpty else { throw CRUDSQLGenError("\(operation): no key paths: name at least one column of \(Self.self)") }
        var columns: Set<Int> = []
        for keyPath in keyPaths {
            guard let column = crudColumnIndex(of: keyPath) else {
                throw CRUDSQLGenError("\(operation): \(keyPath) names no column of \(Self.self)")
            }
            columns.insert(column)
        }
        return columns.sorted()
    }

    /// Every column but those the key paths name.
    @usableFromInline
    static func crudColumns(ignoring keyPaths: [PartialKeyPath<Self>], for operation: String) throws -> [Int] {
        let ignored = Set(try crudColumns(keyPaths, for: operation))
        return crudSchema.columns.indices.filter { !ignored.contains($0) }
    }

    /// Binds the given columns (all, when `nil`) to positions from `position` on.
    @inlinable
    func crudBind<Binder: CRUDBinder>(columns: [Int]?, to binder: inout Binder, from position: Int = 0) throws {
        guard let columns else { return try crudBindRow(to: &binder, from: position) }
        for (offset, column) in columns.enumerated() {
            try crudBindColumn(column, to: &binder, at: position + offset)
        }
    }
}

/// Where `insert` may follow: `table` and `create`.
public protocol InsertAble {
    /// The model whose rows are inserted.
    associatedtype InsertForm: CRUDModel
    /// The database the rows go into.
    associatedtype InsertDatabase: DatabaseProtocol
    /// The table the rows go into.
    var insertionTable: Table<InsertForm, InsertDatabase> { get }
}

extension Table: InsertAble {
    public var insertionTable: Table<A, D> { self }
}

extension Create: InsertAble {
    public var insertionTable: Table<A, D> { table }
}

// The insert methods are inlinable so that binding specializes in the caller's module, where the
// model's generated binder and the driver's statement type are concrete.
extension InsertAble {
    /// Inserts the rows with every column, in one transaction; one prepared statement serves them all.
    /// - Throws: `CRUDSQLExeError` (nothing is inserted then), `CRUDEncoderError`.
    @discardableResult @inlinable
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func insert(_ instances: [InsertForm]) throws -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        try insertRows(instances, columns: nil)
    }

    /// Inserts one row with every column.
    /// - Throws: `CRUDSQLExeError` (nothing is inserted then), `CRUDEncoderError`.
    @discardableResult @inlinable
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func insert(_ instance: InsertForm) throws -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        try insertRows([instance], columns: nil)
    }

    /// Inserts only the named columns; the others take their defaults.
    @discardableResult @inlinable
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func insert(_ instances: [InsertForm], setKeys: PartialKeyPath<InsertForm>, _ rest: PartialKeyPath<InsertForm>...) throws
        -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        try insertRows(instances, columns: try InsertForm.crudColumns([setKeys] + rest, for: "insert"))
    }

    /// Inserts one row with only the named columns; the others take their defaults.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, `CRUDEncoderError`.
    @discardableResult @inlinable
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func insert(_ instance: InsertForm, setKeys: PartialKeyPath<InsertForm>, _ rest: PartialKeyPath<InsertForm>...) throws
        -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        try insertRows([instance], columns: try InsertForm.crudColumns([setKeys] + rest, for: "insert"))
    }

    /// Inserts every column but the named ones (an auto-assigned id, say); ignoring all columns
    /// inserts a row of defaults.
    @discardableResult @inlinable
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func insert(_ instances: [InsertForm], ignoreKeys: PartialKeyPath<InsertForm>, _ rest: PartialKeyPath<InsertForm>...) throws
        -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        try insertRows(instances, columns: try InsertForm.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert"))
    }

    /// Inserts one row without the named columns, which take their defaults (an id the database
    /// assigns).
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, `CRUDEncoderError`.
    @discardableResult @inlinable
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func insert(_ instance: InsertForm, ignoreKeys: PartialKeyPath<InsertForm>, _ rest: PartialKeyPath<InsertForm>...) throws
        -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        try insertRows([instance], columns: try InsertForm.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert"))
    }

    /// Inserts `instances`, their `columns` (every column when `nil`) worked out inside the
    /// executor's boundary.
    @inlinable
    func insertRows(_ instances: [InsertForm], columns: @autoclosure () throws -> [Int]?)
        throws -> Insert<InsertForm, Table<InsertForm, InsertDatabase>> {
        let operation = CRUDInsertOperation<InsertForm, InsertDatabase.Configuration.Connection, Void>(instances, columns: columns, returning: nil)
        return Insert(lastInsertId: try insertionTable.executor.run(operation).lastInsertId)
    }
}

extension UpdateAble {
    /// Sets every column of the matching rows (all rows without a `where`) to `instance`'s values.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`.
    @discardableResult
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func update(_ instance: OverAllForm) throws -> Update<OverAllForm, Self> {
        try updateRows(instance, columns: nil)
    }

    /// Sets only the named columns.
    @discardableResult
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func update(_ instance: OverAllForm, setKeys: PartialKeyPath<OverAllForm>, _ rest: PartialKeyPath<OverAllForm>...) throws
        -> Update<OverAllForm, Self> {
        try updateRows(instance, columns: try OverAllForm.crudColumns([setKeys] + rest, for: "update"))
    }

    /// Sets only the columns `keys` names, a list made at run time: the fields a PATCH request sent.
    /// - Throws: `CRUDSQLGenError` for an empty list or a key path that names no column (before
    ///   anything is written); `CRUDSQLExeError`, `CRUDEncoderError`.
    @discardableResult
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func update(_ instance: OverAllForm, setKeys keys: [PartialKeyPath<OverAllForm>]) throws -> Update<OverAllForm, Self> {
        try updateRows(instance, columns: try OverAllForm.crudColumns(keys, for: "update"))
    }

    /// Sets every column but the named ones.
    @discardableResult
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func update(_ instance: OverAllForm, ignoreKeys: PartialKeyPath<OverAllForm>, _ rest: PartialKeyPath<OverAllForm>...) throws
        -> Update<OverAllForm, Self> {
        try updateRows(instance, columns: try OverAllForm.crudColumns(ignoring: [ignoreKeys] + rest, for: "update"))
    }

    /// Updates the matching rows' `columns` (every column when `nil`), worked out inside the
    /// executor's boundary.
    func updateRows(_ instance: OverAllForm, columns: @autoclosure () throws -> [Int]?) throws -> Update<OverAllForm, Self> {
        let operation = CRUDWriteOperation<OverAllForm, DatabaseType.Configuration.Connection, Void>(update: plan, with: instance, columns: columns)
        return Update(changedRows: try executor.run(operation).changedRows)
    }
}

extension DeleteAble {
    /// Deletes the matching rows (all rows without a `where`).
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`.
    @discardableResult
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func delete() throws -> Delete<OverAllForm, Self> {
        let operation = CRUDWriteOperation<OverAllForm, DatabaseType.Configuration.Connection, Void>(delete: plan)
        return Delete(changedRows: try executor.run(operation).changedRows)
    }
}

extension Table {
    /// Creates an index on the columns if it does not exist yet.
    /// - Throws: `CRUDSQLGenError` for no key paths or one that names no column; `CRUDSQLExeError`.
    @discardableResult
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func index(unique: Bool = false, _ keys: PartialKeyPath<A>...) throws -> Index<A, Self> {
        try index(unique: unique, keys: keys)
    }

    func index(unique: Bool, keys: [PartialKeyPath<A>]) throws -> Index<A, Self> {
        let dialect = executor.dialect
        // Without IF NOT EXISTS, the database's refusal of an existing index is the same answer.
        try executor.schemaChange("index on \(A.self)", tables: [A.crudSchema.name], run: try indexStep(unique: unique, keys: keys)) { error in
            dialect.refusedExistingIndex(error)
        }
        return Index(table: self)
    }

    private func indexStep(unique: Bool, keys: [PartialKeyPath<A>]) throws -> CRUDStatementPlan {
        guard !keys.isEmpty else { throw CRUDSQLGenError("index: name at least one column") }
        var columns: [Int] = []
        for key in keys {
            guard let column = A.crudColumnIndex(of: key) else {
                throw CRUDSQLGenError("index: \(key) names no column of \(A.self)")
            }
            if !columns.contains(column) { columns.append(column) }
        }
        return .createIndex(nil, table: A.crudSchema.name, columns: columns.map { A.crudSchema.columns[$0] }, unique: unique)
    }
}
