/// The aggregate functions `sum`, `min`, `max` and `avg` compute over a column.
enum CRUDAggregate: String {
    case sum = "SUM", min = "MIN", max = "MAX", avg = "AVG"
}

// Aggregates over the query's rows (after its `where`, `order` and `limit`; joins do not change
// them). Each is NULL, so `nil`, over no rows (or only NULLs); `sum` keeps the column's type, so a
// sum that does not fit it throws rather than wrap.
extension SelectAble {
    /// The sum of a numeric column, `nil` over no rows.
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError`, also when
    ///   the sum does not fit the column's type; `CRUDDecoderError`.
    public func sum<Value: CRUDValue & Numeric>(_ keyPath: KeyPath<OverAllForm, Value>) throws -> Value? {
        try aggregate(.sum, keyPath, as: Value.self)
    }

    public func sum<Value: CRUDValue & Numeric>(_ keyPath: KeyPath<OverAllForm, Value?>) throws -> Value? {
        try aggregate(.sum, keyPath, as: Value.self)
    }

    /// The smallest value of a column, `nil` over no rows.
    public func min<Value: CRUDValue & Comparable>(_ keyPath: KeyPath<OverAllForm, Value>) throws -> Value? {
        try aggregate(.min, keyPath, as: Value.self)
    }

    public func min<Value: CRUDValue & Comparable>(_ keyPath: KeyPath<OverAllForm, Value?>) throws -> Value? {
        try aggregate(.min, keyPath, as: Value.self)
    }

    /// The largest value of a column, `nil` over no rows.
    public func max<Value: CRUDValue & Comparable>(_ keyPath: KeyPath<OverAllForm, Value>) throws -> Value? {
        try aggregate(.max, keyPath, as: Value.self)
    }

    public func max<Value: CRUDValue & Comparable>(_ keyPath: KeyPath<OverAllForm, Value?>) throws -> Value? {
        try aggregate(.max, keyPath, as: Value.self)
    }

    /// The mean of a numeric column, `nil` over no rows.
    public func avg<Value: CRUDValue & Numeric>(_ keyPath: KeyPath<OverAllForm, Value>) throws -> Double? {
        try aggregate(.avg, keyPath, as: Double.self)
    }

    public func avg<Value: CRUDValue & Numeric>(_ keyPath: KeyPath<OverAllForm, Value?>) throws -> Double? {
        try aggregate(.avg, keyPath, as: Double.self)
    }

    /// Whether the query has any result.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`.
    public func exists() throws -> Bool {
        return try executor.reporting {
            try plan.validate()
            let limit = CRUDQueryPlan.Limit(max: Swift.min(plan.limit?.max ?? 1, 1), skip: plan.limit?.skip ?? 0)
            var builder = SQLBuilder(dialect: executor.dialect)
            let sql = try logging { try builder.rootQuery(plan, selecting: "1", limit: limit, ordered: false) }
            return try executor.withSession(.read) { session in
                try session.withStatement(sql, builder.parameters) { try $0.step() }
            }
        }
    }

    func aggregate<Result: CRUDValue>(_ function: CRUDAggregate, _ keyPath: AnyKeyPath, as result: Result.Type) throws -> Result? {
        return try executor.reporting {
            try plan.validate()
            guard let column = OverAllForm.crudColumnIndex(ofAny: keyPath) else {
                throw CRUDLogging.logged(CRUDSQLGenError("\(function.rawValue.lowercased()): \(keyPath) names no column of \(OverAllForm.self)"))
            }
            let dialect = executor.dialect
            var builder = SQLBuilder(dialect: dialect)
            let name = dialect.quote(OverAllForm.crudSchema.columns[column].name)
            // The type of a sum or mean varies (PostgreSQL sums integers as numeric); the cast gives
            // the type the result is read as. The smallest and largest keep the column's own.
            var value = "\(function.rawValue)(crud_rows.\(name))"
            if function == .sum || function == .avg { value = "CAST(\(value) AS \(dialect.columnType(Result.crudColumnType)))" }
            let sql = "SELECT \(value) FROM ("
                + (try logging { try builder.rootQuery(plan, selecting: "t0.\(name)", limit: plan.limit, ordered: false) }) + ") AS crud_rows"
            return try executor.withSession(.read) { session in
                try session.withStatement(sql, builder.parameters) { statement in
                    guard try statement.step() else { throw CRUDSQLExeError("\(function.rawValue) returned no row", sql: sql) }
                    return try Result?(crudRow: statement, column: 0)
                }
            }
        }
    }
}
