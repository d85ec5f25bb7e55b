// Inserts and updates that return values of the written rows (`RETURNING`), for values the
// database fills in: defaults, identities. Rows are inserted one statement each, in one
// transaction, so results come back in the order of the input.
extension Table {
    func insertReturning<T>(_ instances: [A], columns: [Int]?, returning: [Int],
                                    _ read: (D.Configuration.Connection.Statement) throws -> T) throws -> [T] {
        let schema = A.crudSchema
        try executor.dialect.requireReturning(from: .insert)
        var sql = ""
        var results: [T] = []
        results.reserveCapacity(instances.count)
        _ = try executor.insert(instances, columns: columns, perStatement: 1, render: { capture, _ in
            sql = SQLBuilder(dialect: executor.dialect)
                .insert(into: schema, columns: columns ?? Array(schema.columns.indices), returning: returning + capture.returning)
            return CRUDStatementText(sql)
        }, idColumn: returning.count) { results.append(try read($0)) }
        guard results.count == instances.count else { throw CRUDSQLExeError("RETURNING gave no row", sql: sql) }
        return results
    }

    func column<R: CRUDValue>(_ keyPath: KeyPath<A, R>) throws -> Int {
        guard let column = A.crudColumnIndex(of: keyPath) else {
            throw CRUDSQLGenError("returning: \(keyPath) names no column of \(A.self)")
        }
        return column
    }

    /// Inserts `instances` and returns the stored value of `returning` for each, in order.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instances: [A]) throws -> [R] {
        return try executor.reporting {
            try insertReturning(instances, columns: nil, returning: [column(returning)]) { try R(crudRow: $0, column: 0) }
        }
    }

    /// Inserts one row with every column and returns its `returning` value as stored.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instance: A) throws -> R {
        return try executor.reporting {
            try self.returning(returning, insert: [instance])[0]
        }
    }

    /// Inserts only the named columns (the others take their defaults) and returns `returning`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instances: [A],
                                        setKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> [R] {
        try executor.reporting {
            try insertReturning(instances, columns: A.crudColumns([setKeys] + rest, for: "insert"), returning: [column(returning)]) {
                try R(crudRow: $0, column: 0)
            }
        }
    }

    /// Inserts one row with only the named columns and returns its `returning` value as stored.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instance: A,
                                        setKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> R {
        try executor.reporting {
            try insertReturning([instance], columns: A.crudColumns([setKeys] + rest, for: "insert"), returning: [column(returning)]) {
                try R(crudRow: $0, column: 0)
            }[0]
        }
    }

    /// Inserts every column but the named ones (they take their defaults) and returns `returning`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instances: [A],
                                        ignoreKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> [R] {
        try executor.reporting {
            try insertReturning(instances, columns: A.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert"), returning: [column(returning)]) {
                try R(crudRow: $0, column: 0)
            }
        }
    }

    /// Inserts one row without the named columns and returns its `returning` value as stored (an
    /// id the database assigns).
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instance: A,
                                        ignoreKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> R {
        try executor.reporting {
            try insertReturning([instance], columns: A.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert"), returning: [column(returning)]) {
                try R(crudRow: $0, column: 0)
            }[0]
        }
    }

    /// Inserts `instances` and returns the stored rows, database defaults filled in, in order.
    public func returning(insert instances: [A]) throws -> [A] {
        return try executor.reporting {
            try insertReturning(instances, columns: nil, returning: Array(A.crudSchema.columns.indices)) { try A(crudRow: $0) }
        }
    }

    /// Inserts one row and returns it as stored, the database's defaults filled in.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning(insert instance: A) throws -> A {
        return try executor.reporting {
            try returning(insert: [instance])[0]
        }
    }

    /// Inserts the rows with only the named columns and returns them as stored, in input order.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning(insert instances: [A], setKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> [A] {
        return try executor.reporting {
            try insertReturning(instances, columns: A.crudColumns([setKeys] + rest, for: "insert"),
                                returning: Array(A.crudSchema.columns.indices)) { try A(crudRow: $0) }
        }
    }

    /// Inserts the rows without the named columns and returns them as stored (the database's
    /// defaults and ids filled in), in input order.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning(insert instances: [A], ignoreKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> [A] {
        return try executor.reporting {
            try insertReturning(instances, columns: A.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert"),
                                returning: Array(A.crudSchema.columns.indices)) { try A(crudRow: $0) }
        }
    }

    /// Inserts one row with only the named columns and returns it as stored.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning(insert instance: A, setKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> A {
        return try executor.reporting {
            try insertReturning([instance], columns: A.crudColumns([setKeys] + rest, for: "insert"),
                                returning: Array(A.crudSchema.columns.indices)) { try A(crudRow: $0) }[0]
        }
    }

    /// Inserts one row without the named columns and returns it as stored, the database's defaults
    /// and id filled in: `let stored = try bikes.returning(insert: bike, ignoreKeys: \.id)`.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning(insert instance: A, ignoreKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> A {
        return try executor.reporting {
            try insertReturning([instance], columns: A.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert"),
                                returning: Array(A.crudSchema.columns.indices)) { try A(crudRow: $0) }[0]
        }
    }
}

extension UpdateAble {
    func updateReturning<R: CRUDValue>(_ keyPath: KeyPath<OverAllForm, R>, _ instance: OverAllForm, columns: [Int]?) throws -> [R] {
        guard let returned = OverAllForm.crudColumnIndex(of: keyPath) else {
            throw CRUDSQLGenError("returning: \(keyPath) names no column of \(OverAllForm.self)")
        }
        try executor.dialect.requireReturning(from: .update)
        var results: [R] = []
        _ = try executor.write(.update, on: OverAllForm.crudSchema, render: { capture in
            let update = try updateStatement(columns: columns, returning: [returned] + capture.returning)
            return CRUDStatementText(update.sql, update.parameters, firstParameter: update.assigned)
        }, bind: { binder in
            try instance.crudBind(columns: columns, to: &binder)
        }, idColumn: 1) { results.append(try R(crudRow: $0, column: 0)) }
        return results
    }

    /// Updates the matching rows with every column and returns `returning` of each updated row.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<OverAllForm, R>, update instance: OverAllForm) throws -> [R] {
        return try executor.reporting {
            try updateReturning(returning, instance, columns: nil)
        }
    }

    /// Updates the named columns of the matching rows and returns `returning` of each updated row.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<OverAllForm, R>, update instance: OverAllForm,
                                        setKeys: PartialKeyPath<OverAllForm>, _ rest: PartialKeyPath<OverAllForm>...) throws -> [R] {
        try executor.reporting {
            try updateReturning(returning, instance, columns: OverAllForm.crudColumns([setKeys] + rest, for: "update"))
        }
    }

    /// Updates every column but the named ones of the matching rows and returns `returning` of each
    /// updated row.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    public func returning<R: CRUDValue>(_ returning: KeyPath<OverAllForm, R>, update instance: OverAllForm,
                                        ignoreKeys: PartialKeyPath<OverAllForm>, _ rest: PartialKeyPath<OverAllForm>...) throws -> [R] {
        try executor.reporting {
            try updateReturning(returning, instance, columns: OverAllForm.crudColumns(ignoring: [ignoreKeys] + rest, for: "update"))
        }
    }
}

extension CRUDDialect {
    /// Refuses a `returning` whose write cannot return on this database.
    func requireReturning(from kind: CRUDChangeKind) throws {
        guard !canReturn(from: kind) else { return }
        let statement = switch kind {
        case .insert: "INSERT"
        case .update: "UPDATE"
        case .delete: "DELETE"
        }
        throw CRUDSQLGenError(
            "returning(…, \(kind):): \(name) has no \(statement) … RETURNING; write the rows, then select them")
    }
}
