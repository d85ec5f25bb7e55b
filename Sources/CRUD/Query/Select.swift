/// The results of a query, read in full when `select()` runs it.
///
/// Because `select()` runs the query and reads every row before it returns, a database failure or a
/// row that does not fit the model is thrown there, at a `try` you wrote; iterating the results
/// afterwards (`for x in try query.select()`, `map`, `filter`, `Array(…)`) cannot fail. Iterating a
/// stored `Select` again yields the same rows, without running the query again: call `select()`
/// again for fresh ones. To stream a large result without holding it in memory, use the chain's
/// `forEach` or `cursor()` instead.
public struct Select<OverAllForm: CRUDModel, Parent: TableProtocol>: RandomAccessCollection where Parent.OverAllForm == OverAllForm {
    /// The results in query order.
    public let rows: [OverAllForm]

    @usableFromInline
    init(rows: [OverAllForm]) {
        self.rows = rows
    }

    @inlinable public var startIndex: Int { rows.startIndex }
    @inlinable public var endIndex: Int { rows.endIndex }
    @inlinable public subscript(position: Int) -> OverAllForm { rows[position] }
}

extension SelectAble {
    /// Runs the query and reads all its results.
    /// - Throws: `CRUDSQLGenError` for a mistake in the chain, `CRUDSQLExeError` when the database
    ///   fails, `CRUDDecoderError` when a row does not fit the model.
    @inlinable
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func select() throws -> Select<OverAllForm, Self> {
        guard plan.isJoinFree else {
            return Select(rows: try executor.run(CRUDSnapshotRowsOperation<OverAllForm, DatabaseType.Configuration.Connection>(plan)).rows)
        }
        return Select(rows: try executor.run(CRUDRowsOperation<OverAllForm, DatabaseType.Configuration.Connection>(plan)))
    }

    /// Runs the query and returns a cursor that reads its results one at a time, for results too
    /// large to hold in memory: `let c = try query.cursor(); while let x = try c.next() { … }`.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError` (from joined children).
    public func cursor() throws -> CRUDCursor<OverAllForm, DatabaseType.Configuration.Connection> {
        // A task may keep the cursor across its awaits.
        try executor.cursor(plan, limit: plan.limit, hold: CRUDConnectionPool.callerIsTask ? .acrossSuspension : .brief)
    }

    /// Runs the query and calls `body` with each result as it is read, without holding them all.
    /// - Throws: what the query throws, or what `body` throws; rows read before a failure have
    ///   been passed to `body`.
    @inlinable
    public func forEach(_ body: (OverAllForm) throws -> Void) throws {
        // `cursor()` and the cursor hand their own errors to `didFail`.
        let cursor = try cursor()
        try cursor.forEachRemaining(body)
    }

    /// How many results `select()` would give, counted by the database without reading them.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func count() throws -> Int {
        try executor.run(CRUDQueryOperation.count(plan))
    }

    /// The first result (with its joined children), or `nil` when there is none.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError`.
    @inlinable
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func first() throws -> OverAllForm? {
        guard plan.isJoinFree else {
            return try executor.run(CRUDSnapshotRowsOperation<OverAllForm, DatabaseType.Configuration.Connection>(plan, limit: plan.firstLimit))
                .rows.first
        }
        return try executor.run(CRUDFirstRowOperation<OverAllForm, DatabaseType.Configuration.Connection>(plan))
    }
}
