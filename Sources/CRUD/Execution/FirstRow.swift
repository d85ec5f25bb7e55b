extension CRUDExecutor {
    /// The first row of a join-free query, read without a cursor: the session keeps the statement
    /// of the query's shape at the select cache's slot, so it is found by index, bound, stepped once
    /// and reset, with no SQL text hashed and nothing allocated for the read itself. Inlinable, so the
    /// model's generated reader is called directly in the caller's module.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError` naming the model.
    @inlinable
    func firstRow<Model: CRUDModel>(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit, as model: Model.Type) throws -> Model? {
        let query = try firstQuery(plan, limit: limit)
        return try reading(Model.self) { session in
            func read(_ statement: Connection.Statement) throws -> Model? {
                try statement.step() ? Model(crudRow: statement) : nil
            }
            guard let slot = query.slot else { return try session.withStatement(query.sql, query.values, read) }
            return try session.withOwnedStatement(slot, query.sql) { statement in
                var binder = statement
                for (position, value) in query.values.enumerated() { try value.bind(to: &binder, at: position) }
                return try read(statement)
            }
        }
    }

    /// Runs `body` on a session for reading rows of `Model`: a decoding error it throws names the
    /// model. What a prepared query and a one-row read run their statement in.
    @inlinable
    func reading<Model: CRUDModel, T>(_ model: Model.Type, _ body: (CRUDSession<Connection>) throws -> T) throws -> T {
        try withSession(.read) { session in
            do {
                return try body(session)
            } catch let decoding as CRUDDecoderError {
                throw decoding.reading(Model.self)
            }
        }
    }

    /// The checked plan's SQL, values and statement slot, from the select cache.
    @usableFromInline
    func firstQuery(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit) throws -> SelectCache.Statement {
        try plan.validate()
        return try SelectCache.shared.statement(plan, limit: limit, dialect: dialect)
    }
}
