extension CRUDExecutor {
    /// The model read from the statement's first row, or `nil` when it has none. Always inlined,
    /// into the caller's specialized read, as the model's reader is (a call cost a chain lookup
    /// 10 instructions more, callgrind).
    /// - Throws: `CRUDSQLExeError`, `CRUDDecoderError` naming the model.
    @inlinable @inline(__always)
    static func readFirst<Model: CRUDModel>(_ statement: Connection.Statement) throws -> Model? {
        guard try statement.step() else { return nil }
        do {
            return try Model(crudRow: statement)
        } catch let decoding as CRUDDecoderError {
            throw decoding.reading(Model.self)
        }
    }

    /// Every row the statement gives; always inlined, as `readFirst` is.
    /// - Throws: `CRUDSQLExeError`, `CRUDDecoderError` naming the model.
    @inlinable @inline(__always)
    static func readAll<Model: CRUDModel>(_ statement: Connection.Statement) throws -> [Model] {
        try readAll(statement) { try Model(crudRow: $0) }
    }

    /// Every row of a joined query, whose relations `joins` holds.
    /// - Throws: `CRUDSQLExeError`, `CRUDDecoderError` naming the model.
    @inlinable
    static func readAll<Model: CRUDModel>(_ statement: Connection.Statement, joins: [JoinedChildren<Connection>?]) throws -> [Model] {
        try readAll(statement) { try Model(crudRow: JoinedRow<Connection>(base: $0, joins: joins)) }
    }

    /// Every row `statement` steps to, each as `read` reads it.
    @inlinable @inline(__always)
    static func readAll<Model: CRUDModel>(_ statement: Connection.Statement, _ read: (Connection.Statement) throws -> Model) throws -> [Model] {
        var rows: [Model] = []
        do {
            while try statement.step() { rows.append(try read(statement)) }
        } catch let decoding as CRUDDecoderError {
            throw decoding.reading(Model.self)
        }
        return rows
    }

    /// Binds `values` from position 0 on.
    /// - Throws: `CRUDEncoderError`, `CRUDSQLExeError`.
    @inlinable
    static func bind(_ values: [CRUDDatabaseValue], to binder: inout Connection.Statement) throws {
        for (position, value) in values.enumerated() { try value.bind(to: &binder, at: position) }
    }

    /// The checked plan's SQL for all its rows (at most `limit`, the plan's own when `nil`) and the
    /// values it binds; a plan that locks its rows is refused outside a transaction.
    /// - Throws: `CRUDSQLGenError`.
    @usableFromInline
    func selectQuery(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit? = nil, inTransaction: Bool) throws -> CRUDStatementText {
        try plan.validate(inTransaction: inTransaction)
        let (sql, parameters) = try SelectCache.shared.select(plan, limit: limit ?? plan.limit, dialect: selectDialect)
        return CRUDStatementText(sql, parameters)
    }

    /// The checked plan's SQL for its first row and statement slot, from the select cache, and the
    /// values it binds; a plan that locks its rows is refused outside a transaction.
    @usableFromInline
    func firstQuery(_ plan: CRUDQueryPlan, inTransaction: Bool, values: inout [CRUDDatabaseValue]) throws -> SelectCache.Statement {
        try plan.validate(inTransaction: inTransaction)
        return try SelectCache.shared.statement(plan, limit: plan.firstLimit, dialect: selectDialect, values: &values)
    }
}
