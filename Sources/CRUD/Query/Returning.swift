// Inserts and updates that return values of the written rows (`RETURNING`), for values the
// database fills in: defaults, identities. Rows are inserted one statement each, in one
// transaction, so results come back in the order of the input.
extension Table {
    /// Inserts `instances` (their `columns`, every column when `nil`) and reads each stored row
    /// with `read`: the column `returning` names, or the whole row when it is `nil`. The key paths
    /// are checked inside the executor's boundary.
    func insertReturning<T>(_ instances: [A], columns: @autoclosure () throws -> [Int]?, returning: PartialKeyPath<A>?,
                            _ read: (D.Configuration.Connection.Statement) throws -> T) throws -> [T] {
        try withoutActuallyEscaping(read) { read in
            try executor.run(CRUDInsertOperation(instances, columns: columns, returning: .init(returning, read: read))).rows
        }
    }

    /// Inserts `instances` and returns the stored value of `returning` for each, in order.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instances: [A]) throws -> [R] {
        try insertReturning(instances, columns: nil, returning: returning) { try R(crudRow: $0, column: 0) }
    }

    /// Inserts one row with every column and returns its `returning` value as stored.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instance: A) throws -> R {
        try self.returning(returning, insert: [instance])[0]
    }

    /// Inserts only the named columns (the others take their defaults) and returns `returning`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instances: [A],
                                        setKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> [R] {
        try insertReturning(instances, columns: try A.crudColumns([setKeys] + rest, for: "insert"), returning: returning) {
            try R(crudRow: $0, column: 0)
        }
    }

    /// Inserts one row with only the named columns and returns its `returning` value as stored.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instance: A,
                                        setKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> R {
        try insertReturning([instance], columns: try A.crudColumns([setKeys] + rest, for: "insert"), returning: returning) {
            try R(crudRow: $0, column: 0)
        }[0]
    }

    /// Inserts every column but the named ones (they take their defaults) and returns `returning`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instances: [A],
                                        ignoreKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> [R] {
        try insertReturning(instances, columns: try A.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert"), returning: returning) {
            try R(crudRow: $0, column: 0)
        }
    }

    /// Inserts one row without the named columns and returns its `returning` value as stored (an
    /// id the database assigns).
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning<R: CRUDValue>(_ returning: KeyPath<A, R>, insert instance: A,
                                        ignoreKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> R {
        try insertReturning([instance], columns: try A.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert"), returning: returning) {
            try R(crudRow: $0, column: 0)
        }[0]
    }

    /// Inserts `instances` and returns the stored rows, database defaults filled in, in order.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning(insert instances: [A]) throws -> [A] {
        try insertReturning(instances, columns: nil, returning: nil) { try A(crudRow: $0) }
    }

    /// Inserts one row and returns it as stored, the database's defaults filled in.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning(insert instance: A) throws -> A {
        try returning(insert: [instance])[0]
    }

    /// Inserts the rows with only the named columns and returns them as stored, in input order.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning(insert instances: [A], setKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> [A] {
        try insertReturning(instances, columns: try A.crudColumns([setKeys] + rest, for: "insert"),
                            returning: nil) { try A(crudRow: $0) }
    }

    /// Inserts the rows without the named columns and returns them as stored (the database's
    /// defaults and ids filled in), in input order.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning(insert instances: [A], ignoreKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> [A] {
        try insertReturning(instances, columns: try A.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert"),
                            returning: nil) { try A(crudRow: $0) }
    }

    /// Inserts one row with only the named columns and returns it as stored.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning(insert instance: A, setKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> A {
        try insertReturning([instance], columns: try A.crudColumns([setKeys] + rest, for: "insert"),
                            returning: nil) { try A(crudRow: $0) }[0]
    }

    /// Inserts one row without the named columns and returns it as stored, the database's defaults
    /// and id filled in: `let stored = try bikes.returning(insert: bike, ignoreKeys: \.id)`.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning(insert instance: A, ignoreKeys: PartialKeyPath<A>, _ rest: PartialKeyPath<A>...) throws -> A {
        try insertReturning([instance], columns: try A.crudColumns(ignoring: [ignoreKeys] + rest, for: "insert"),
                            returning: nil) { try A(crudRow: $0) }[0]
    }
}

extension UpdateAble {
    /// Updates the matching rows' `columns` (every column when `nil`) and returns the column
    /// `keyPath` names of each; the key paths are checked inside the executor's boundary.
    func updateReturning<R: CRUDValue>(_ keyPath: KeyPath<OverAllForm, R>, _ instance: OverAllForm,
                                       columns: @autoclosure () throws -> [Int]?) throws -> [R] {
        try executor.run(CRUDWriteOperation(update: plan, with: instance, columns: columns, returning: .init(keyPath) { try R(crudRow: $0, column: 0) })).rows
    }

    /// Updates the matching rows with every column and returns `returning` of each updated row.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning<R: CRUDValue>(_ returning: KeyPath<OverAllForm, R>, update instance: OverAllForm) throws -> [R] {
        try updateReturning(returning, instance, columns: nil)
    }

    /// Updates the named columns of the matching rows and returns `returning` of each updated row.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning<R: CRUDValue>(_ returning: KeyPath<OverAllForm, R>, update instance: OverAllForm,
                                        setKeys: PartialKeyPath<OverAllForm>, _ rest: PartialKeyPath<OverAllForm>...) throws -> [R] {
        try updateReturning(returning, instance, columns: try OverAllForm.crudColumns([setKeys] + rest, for: "update"))
    }

    /// Updates every column but the named ones of the matching rows and returns `returning` of each
    /// updated row.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDEncoderError`, `CRUDDecoderError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func returning<R: CRUDValue>(_ returning: KeyPath<OverAllForm, R>, update instance: OverAllForm,
                                        ignoreKeys: PartialKeyPath<OverAllForm>, _ rest: PartialKeyPath<OverAllForm>...) throws -> [R] {
        try updateReturning(returning, instance, columns: try OverAllForm.crudColumns(ignoring: [ignoreKeys] + rest, for: "update"))
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
