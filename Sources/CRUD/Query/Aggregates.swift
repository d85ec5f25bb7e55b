/// The aggregate functions `sum`, `min`, `max` and `avg` compute over a column, and `count` over rows.
@usableFromInline
enum CRUDAggregate: String {
    case sum = "SUM", min = "MIN", max = "MAX", avg = "AVG", count = "COUNT"
}

// Aggregates over the query's rows (after its `where`, `order` and `limit`; joins do not change
// them). Each is NULL, so `nil`, over no rows (or only NULLs); `sum` keeps the column's type, so a
// sum that does not fit it throws rather than wrap.
extension SelectAble {
    /// The sum of a numeric column, `nil` over no rows.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, also when
    ///   the sum does not fit the column's type; `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func sum<Value: CRUDValue & Numeric>(_ keyPath: KeyPath<OverAllForm, Value>) throws -> Value? {
        try aggregate(.sum, keyPath, as: Value.self)
    }

    /// The sum of an optional column's non-NULL values, `nil` when there are none.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func sum<Value: CRUDValue & Numeric>(_ keyPath: KeyPath<OverAllForm, Value?>) throws -> Value? {
        try aggregate(.sum, keyPath, as: Value.self)
    }

    /// The smallest value of a column, `nil` over no rows.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func min<Value: CRUDValue & Comparable>(_ keyPath: KeyPath<OverAllForm, Value>) throws -> Value? {
        try aggregate(.min, keyPath, as: Value.self)
    }

    /// The least value of an optional column's non-NULL values, `nil` when there are none.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func min<Value: CRUDValue & Comparable>(_ keyPath: KeyPath<OverAllForm, Value?>) throws -> Value? {
        try aggregate(.min, keyPath, as: Value.self)
    }

    /// The largest value of a column, `nil` over no rows.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func max<Value: CRUDValue & Comparable>(_ keyPath: KeyPath<OverAllForm, Value>) throws -> Value? {
        try aggregate(.max, keyPath, as: Value.self)
    }

    /// The greatest value of an optional column's non-NULL values, `nil` when there are none.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func max<Value: CRUDValue & Comparable>(_ keyPath: KeyPath<OverAllForm, Value?>) throws -> Value? {
        try aggregate(.max, keyPath, as: Value.self)
    }

    /// The mean of a numeric column, `nil` over no rows.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func avg<Value: CRUDValue & Numeric>(_ keyPath: KeyPath<OverAllForm, Value>) throws -> Double? {
        try aggregate(.avg, keyPath, as: Double.self)
    }

    /// The average of an optional column's non-NULL values, `nil` when there are none.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func avg<Value: CRUDValue & Numeric>(_ keyPath: KeyPath<OverAllForm, Value?>) throws -> Double? {
        try aggregate(.avg, keyPath, as: Double.self)
    }

    /// Whether the query has any result.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func exists() throws -> Bool {
        try executor.run(CRUDQueryOperation.exists(plan))
    }

    /// The number of rows for each value of a column (`GROUP BY`): `count(groupedBy: \.color)` is
    /// `["red": 2, "blue": 1]`. An optional column groups its NULLs under `nil`.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`; `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func count<Key: CRUDValue & Hashable>(groupedBy key: KeyPath<OverAllForm, Key>) throws -> [Key: Int] {
        try grouped(by: key, .count, of: nil, as: Int.self)
    }

    /// The sum of a numeric column for each value of another (`GROUP BY`): `sum(\.gears, groupedBy: \.color)`.
    /// - Throws: as `sum(_:)`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func sum<Value: CRUDValue & Numeric, Key: CRUDValue & Hashable>(_ keyPath: KeyPath<OverAllForm, Value>,
                                                                          groupedBy key: KeyPath<OverAllForm, Key>) throws -> [Key: Value] {
        try grouped(by: key, .sum, of: keyPath, as: Value.self)
    }

    func aggregate<Result: CRUDValue>(_ function: CRUDAggregate, _ keyPath: AnyKeyPath, as result: Result.Type) throws -> Result? {
        try executor.run(aggregateOperation(function, keyPath, as: result))
    }

    func grouped<Key: CRUDValue & Hashable, Result: CRUDValue>(by key: AnyKeyPath, _ function: CRUDAggregate,
                                                              of keyPath: AnyKeyPath?, as result: Result.Type) throws -> [Key: Result] {
        try executor.run(groupedOperation(by: key, function, of: keyPath, as: result))
    }

    /// The operation that reads `function` of `keyPath` over the query's rows.
    func aggregateOperation<Result: CRUDValue>(_ function: CRUDAggregate, _ keyPath: AnyKeyPath, as result: Result.Type)
        -> CRUDQueryOperation<CRUDClosureReader<DatabaseType.Configuration.Connection, Result?>> {
        CRUDQueryOperation({ try aggregatePlan(function, of: keyPath, groupedBy: nil, as: Result.self) },
                           reader: CRUDClosureReader { try Self.aggregateValue(function, $0) })
    }

    /// The operation that reads `function` of `keyPath` (the row count when `nil`) for each value of `key`.
    func groupedOperation<Key: CRUDValue & Hashable, Result: CRUDValue>(by key: AnyKeyPath, _ function: CRUDAggregate, of keyPath: AnyKeyPath?,
                                                                       as result: Result.Type)
        -> CRUDQueryOperation<CRUDClosureReader<DatabaseType.Configuration.Connection, [Key: Result]>> {
        CRUDQueryOperation({ try aggregatePlan(function, of: keyPath, groupedBy: key, as: Result.self) },
                           reader: CRUDClosureReader { try Self.groups($0) })
    }

    /// The one value an aggregate's statement returns.
    /// - Throws: `CRUDSQLExeError`, `CRUDDecoderError`.
    static func aggregateValue<Result: CRUDValue>(_ function: CRUDAggregate, _ statement: DatabaseType.Configuration.Connection.Statement)
        throws -> Result? {
        guard try statement.step() else { throw CRUDSQLExeError("\(function.rawValue) returned no row") }
        return try Result?(crudRow: statement, column: 0)
    }

    /// The value of each group a grouped aggregate's statement returns, by its key.
    /// - Throws: `CRUDSQLExeError`, `CRUDDecoderError`.
    static func groups<Key: CRUDValue & Hashable, Result: CRUDValue>(_ statement: DatabaseType.Configuration.Connection.Statement)
        throws -> [Key: Result] {
        var groups: [Key: Result] = [:]
        while try statement.step() {
            groups[try Key(crudRow: statement, column: 0)] = try Result(crudRow: statement, column: 1)
        }
        return groups
    }

    /// `function` over the query's rows, of the column `keyPath` names (`function(*)` without one),
    /// for each value of the column `key` names where given.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column.
    func aggregatePlan<Result: CRUDValue>(_ function: CRUDAggregate, of keyPath: AnyKeyPath?, groupedBy key: AnyKeyPath?,
                                                 as result: Result.Type) throws -> CRUDStatementPlan {
        func column(_ path: AnyKeyPath?) throws -> Int? {
            guard let path else { return nil }
            guard let column = OverAllForm.crudColumnIndex(ofAny: path) else {
                throw CRUDSQLGenError("\(function.rawValue.lowercased()): \(path) names no column of \(OverAllForm.self)")
            }
            return column
        }
        // The type of a sum or mean varies (PostgreSQL sums integers as numeric); the cast gives
        // the type the result is read as. The smallest and largest keep the column's own.
        let cast = keyPath != nil && (function == .sum || function == .avg) ? Result.crudColumnType : nil
        return .aggregate(plan, function, value: try column(keyPath), groupedBy: try column(key), cast: cast)
    }
}
