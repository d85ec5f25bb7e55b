import Foundation

extension SelectAble {
    /// Prepares this query with one more condition, `keyPath == value`, whose value is given each
    /// time it runs: a lookup repeated with other values. Its SQL is built once, and each
    /// connection prepares the statement once and keeps it, found by position rather than by its
    /// text, so a run costs binding, stepping and reading only.
    ///
    ///     let byID = try db.table(Person.self).prepared(matching: \.id)
    ///     let person = try byID.first(42)
    ///     let adults = try db.table(Person.self).where(\Person.age >= 18).order(by: \.name).prepared(matching: \.city)
    ///     for person in try adults.select("Oslo") { … }
    ///
    /// Keep the query and use it from any thread or task; its runs take part in the current
    /// transaction as the chain's do. The condition compares with `=`, so a `nil` value would match
    /// no row: running it with `nil` throws (use `where(\.x == nil)`, which means `IS NULL`).
    /// - Throws: `CRUDSQLGenError` for a mistake in the chain, a key path that names no column, or a
    ///   chain with joins (which prepared queries do not take).
    public func prepared<Key: CRUDValue>(matching keyPath: KeyPath<OverAllForm, Key>) throws
        -> CRUDPreparedQuery<OverAllForm, Key, DatabaseType.Configuration.Connection> {
        try executor.building {
            try CRUDPreparedQuery(executor: executor, plan: plan, keyPath: keyPath)
        }
    }
}

/// A select prepared once and run with a value for its key condition: see `prepared(matching:)`.
public final class CRUDPreparedQuery<Model: CRUDModel, Key: CRUDValue, Connection: CRUDConnection>: Sendable {
    /// One form of the query's SQL, with the statement slot that holds it on each connection.
    @usableFromInline
    struct Variant: Sendable {
        /// The chain's own values, bound after the key (at position 0).
        @usableFromInline let parameters: [CRUDDatabaseValue]
        /// The SQL, and where each connection keeps its statement.
        @usableFromInline let slot: CRUDStatementSlot
    }

    @usableFromInline let executor: CRUDExecutor<Connection>
    /// The whole query, for `select` and `forEach`.
    @usableFromInline let all: Variant
    /// The query limited to its first row, for `first`.
    @usableFromInline let first: Variant
    /// The key's name, for messages.
    @usableFromInline let keyName: String

    init(executor: CRUDExecutor<Connection>, plan: CRUDQueryPlan, keyPath: KeyPath<Model, Key>) throws {
        try plan.validate()
        guard plan.joins.isEmpty else {
            throw CRUDSQLGenError("prepared(matching:): a query with joins cannot be prepared; run it as a chain")
        }
        guard let column = Model.crudColumnIndex(of: keyPath) else {
            throw CRUDSQLGenError("prepared(matching:): \(keyPath) names no column of \(Model.self)")
        }
        self.executor = executor
        keyName = Model.crudSchema.columns[column].name
        // The key's condition comes first, so its value binds at position 0; the value here only
        // shapes the SQL (`= ?`), it is never bound.
        var keyed = plan
        let condition = CRUDBooleanExpression.Node.compare(CRUDColumnReference(keyPath), .equal, .integer(0))
        keyed.filter = CRUDBooleanExpression(plan.filter.map { .and(condition, $0.node) } ?? condition)
        func variant(_ limit: CRUDQueryPlan.Limit?) throws -> Variant {
            let select = try executor.render(.select(keyed, limit: limit))
            return Variant(parameters: Array(select.parameters.dropFirst()), slot: CRUDStatementSlot(select.sql))
        }
        all = try variant(plan.limit)
        first = try variant(plan.firstLimit)
    }

    /// The first row whose key equals `key` (in the query's order), or `nil` when there is none.
    /// - Throws: `CRUDSQLGenError` for a `nil` key; `CRUDSQLExeError` when the database fails;
    ///   `CRUDDecoderError` when the row does not fit the model.
    @inlinable
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func first(_ key: Key) throws -> Model? {
        try executor.run(CRUDKeptQueryOperation(self, firstOnly: true, key: key, reader: CRUDFirstRowReader<Model, Connection>()))
    }

    /// Every row whose key equals `key`, in the query's order.
    /// - Throws: as `first(_:)`.
    @inlinable
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func select(_ key: Key) throws -> [Model] {
        try executor.run(CRUDKeptQueryOperation(self, firstOnly: false, key: key, reader: CRUDAllRowsReader<Model, Connection>()))
    }

    /// Calls `body` with each row whose key equals `key` as it is read, without holding them all.
    /// - Throws: as `first(_:)`, or what `body` throws.
    @inlinable
    public func forEach(_ key: Key, _ body: (Model) throws -> Void) throws {
        // The reader runs before `forEach` returns.
        try withoutActuallyEscaping(body) { body in
            try executor.run(CRUDKeptQueryOperation(self, firstOnly: false, key: key, reader: CRUDClosureReader<Connection, Void> { statement in
                while try statement.step() {
                    let row: Model
                    do {
                        row = try Model(crudRow: statement)
                    } catch let decoding as CRUDDecoderError {
                        throw decoding.reading(Model.self)
                    }
                    try body(row)
                }
            }))
        }
    }

    /// The first row whose key equals `key`, run as the chain's async reads are: waiting for the
    /// server without holding a thread where the driver can (PostgreSQL, MySQL), else off the
    /// cooperative pool or on the caller's thread (SQLite).
    /// - Throws: as `first(_:)`.
    @inlinable
    public func first(_ key: Key) async throws -> Model? where Key: Sendable, Model: Sendable {
        try await executor.run(CRUDKeptQueryOperation(self, firstOnly: true, key: key, reader: CRUDFirstRowReader<Model, Connection>()))
    }

    /// Every row whose key equals `key`, run as `first(_:)` is.
    /// - Throws: as `first(_:)`.
    @inlinable
    public func select(_ key: Key) async throws -> [Model] where Key: Sendable, Model: Sendable {
        try await executor.run(CRUDKeptQueryOperation(self, firstOnly: false, key: key, reader: CRUDAllRowsReader<Model, Connection>()))
    }

    /// Binds `key` and the own values of the variant (`first`'s, else `all`'s). Always inlined, and
    /// given which variant rather than a copy of it, whose three references a lookup retained and
    /// released (see Benchmarks/README.md).
    /// - Throws: `CRUDSQLGenError` for a `nil` key; `CRUDEncoderError`.
    @inlinable @inline(__always)
    func bind(_ key: Key, first isFirst: Bool, to binder: inout Connection.Statement) throws {
        if Key.crudIsOptional, try CRUDDatabaseValue(key) == .null {
            throw CRUDSQLGenError("a prepared query matching \"\(keyName)\" ran with nil, which = matches in no row; "
                + "select with where(\\.\(keyName) == nil) instead, which means IS NULL")
        }
        try key.crudBind(to: &binder, at: 0)
        if isFirst {
            try Self.bind(first.parameters, to: &binder)
        } else {
            try Self.bind(all.parameters, to: &binder)
        }
    }

    /// Binds a variant's own values after the key.
    /// - Throws: `CRUDEncoderError`.
    @inlinable @inline(__always)
    static func bind(_ parameters: [CRUDDatabaseValue], to binder: inout Connection.Statement) throws {
        for (offset, value) in parameters.enumerated() { try value.bind(to: &binder, at: offset + 1) }
    }
}

/// A statement each connection keeps, prepared on its first use: its SQL, and where it sits on
/// each connection: a small index, so a session finds the statement in an array without hashing,
/// and a generation, so a statement prepared for a query that is gone is not taken for the one
/// that got its index next. One reference for the three, which a run passes along.
@usableFromInline
final class CRUDStatementSlot: Sendable {
    @usableFromInline let sql: String
    @usableFromInline let index: Int
    @usableFromInline let generation: Int

    init(_ sql: String) {
        self.sql = sql
        (index, generation) = Self.allocator.take()
    }

    deinit {
        Self.allocator.giveBack(index)
    }

    private static let allocator = Allocator()

    /// `@unchecked Sendable`: `free`, `next` and `generations` are guarded by `lock`.
    private final class Allocator: @unchecked Sendable {
        private let lock = NSLock()
        private var free: [Int] = []
        private var next = 0
        private var generations = 0

        func take() -> (index: Int, generation: Int) {
            lock.withLock {
                generations += 1
                if let index = free.popLast() { return (index, generations) }
                next += 1
                return (next - 1, generations)
            }
        }

        func giveBack(_ index: Int) {
            lock.withLock { free.append(index) }
        }
    }
}
