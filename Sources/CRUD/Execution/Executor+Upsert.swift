// How an upsert runs: with the dialect's conflict clause where it names the target, or row by row,
// inserting and updating on a collision with the target, where none does (MySQL).

extension CRUDExecutor {
    /// Inserts `instances`, each in order; a row whose `target` columns match a stored row sets the
    /// `updated` columns instead (keeps the stored row when there are none); `columns` gives both,
    /// worked out inside the boundary. Returns the rows inserted or updated.
    /// - Throws: `CRUDSQLExeError` of kind `.conflictTargetNotUnique` before writing when `target` is
    ///   neither the primary key nor a unique constraint; `CRUDSQLExeError`, `CRUDEncoderError`.
    func upsert<A: CRUDModel>(_ instances: [A], columns: () throws -> (target: [Int], updated: [Int])) throws -> Int {
        let schema = A.crudSchema
        let (target, updated) = try upsertColumns(of: A.self, columns)
        guard !instances.isEmpty else { return 0 }
        let instances = A.crudStampedForInsert(instances)
        return try withSession(.write) { session in
            let names = target.map { schema.columns[$0].name }
            // Found out before anything is written, and the same on every backend: the databases
            // tell a target that is not a key only by a general error code.
            let keys = try session.uniqueKeys(of: schema.name, exactly: names)
            guard !keys.isEmpty else { throw Self.conflictTargetNotUnique(A.self, names) }
            guard upsertsNameTarget else {
                return try session.transaction(.default) {
                    try insertOrUpdate(instances, target: target, keys: keys, updated: updated, in: session)
                }
            }
            let statement = try upsertStatement(of: A.self, target: target, updated: updated, on: session)
            func write() throws -> Int {
                try session.withStatement(statement.sql) { prepared in
                    var binder = prepared
                    var written = 0
                    for (index, instance) in instances.enumerated() {
                        if index > 0 { try prepared.reset() }
                        try instance.crudBindRow(to: &binder, from: 0)
                        try Self.stepUpsert(prepared, statement.capture, returnsIDs: statement.returnsIDs, in: schema.name, on: session)
                        written += prepared.changedRows
                    }
                    return written
                }
            }
            return instances.count > 1 ? try session.transaction(.default, write) : try write()
        }
    }

    /// Whether an async upsert of this database can await the server in its task: it writes
    /// without blocking, and its dialect names the conflict target (not MySQL's row-by-row
    /// upsert, which still runs on the connection's queue).
    var awaitsUpserts: Bool {
        canAwaitServer(writing: .insert) && upsertsNameTarget
    }

    /// `upsert(_:columns:)` awaiting the server, where `awaitsUpserts`: the table's keys read from
    /// the catalog and each row's statement sent in the task, which suspends for the answers.
    /// - Throws: as the synchronous form.
    nonisolated(nonsending) func upsert<A: CRUDModel>(_ instances: [A], columns: () throws -> (target: [Int], updated: [Int])) async throws -> Int {
        let schema = A.crudSchema
        let (target, updated) = try upsertColumns(of: A.self, columns)
        guard !instances.isEmpty else { return 0 }
        let instances = A.crudStampedForInsert(instances)
        return try await awaiting(.write) { session in
            let names = target.map { schema.columns[$0].name }
            guard !(try await session.uniqueKeysAwaiting(of: schema.name, exactly: names)).isEmpty else {
                throw Self.conflictTargetNotUnique(A.self, names)
            }
            let statement = try upsertStatement(of: A.self, target: target, updated: updated, on: session)
            nonisolated(nonsending) func write() async throws -> Int {
                var written = 0
                for instance in instances {
                    written += try await session.withStatement(statement.sql, [], bind: { try instance.crudBindRow(to: &$0, from: 0) }) {
                        try Self.stepUpsert($0, statement.capture, returnsIDs: statement.returnsIDs, in: schema.name, on: session)
                        return $0.changedRows
                    }
                }
                return written
            }
            return instances.count > 1 ? try await session.transaction(.default, write) : try await write()
        }
    }

    /// The target and updated columns `columns` gives, worked out inside the boundary; the updated
    /// ones with `updatedAt` stamped (none when a conflict keeps the stored row).
    /// - Throws: what `columns` throws, reported.
    private func upsertColumns<A: CRUDModel>(of model: A.Type, _ columns: () throws -> (target: [Int], updated: [Int])) throws
        -> (target: [Int], updated: [Int]) {
        try reporting {
            let (target, updated) = try columns()
            // Ignoring a conflict keeps the stored row as it is, its `updatedAt` too.
            return (target, updated.isEmpty ? [] : A.crudColumns(stamping: updated, for: .update) ?? [])
        }
    }

    private static func conflictTargetNotUnique<A: CRUDModel>(_ model: A.Type, _ names: [String]) -> CRUDSQLExeError {
        CRUDSQLExeError(
            "upsert: the conflict target (\(names.joined(separator: ", "))) of \(A.self) is neither its primary key nor a unique constraint, so the "
                + "database cannot tell which row conflicts; declare .unique(…) in crudConstraints or name the primary key",
            kind: .conflictTargetNotUnique, table: A.crudSchema.name)
    }

    /// The upsert statement of a dialect with a conflict clause, what it records for observers, and
    /// whether it returns each row's id and whether it was inserted.
    /// - Throws: `CRUDSQLGenError`.
    private func upsertStatement<A: CRUDModel>(of model: A.Type, target: [Int], updated: [Int], on session: Session) throws
        -> (sql: String, capture: CRUDChangeCapture, returnsIDs: Bool) {
        let schema = A.crudSchema
        let capture = session.changeCapture(for: schema, writing: .insert)
        let returnsIDs = capture.idColumn != nil && session.dialect.upsertInsertedFlag != nil
        let sql = try render(.upsert(schema, target: target, updated: updated, returningID: returnsIDs ? capture.idColumn : nil)).sql
        return (sql, capture, returnsIDs)
    }

    /// Steps an upsert's `statement`, bound to a row, recording what it did for observers.
    /// - Throws: `CRUDSQLExeError`.
    private static func stepUpsert(_ statement: Connection.Statement, _ capture: CRUDChangeCapture, returnsIDs: Bool, in table: String,
                                   on session: Session) throws {
        guard returnsIDs else {
            return try session.step(statement, writing: .insert, in: table, capture: CRUDChangeCapture(observed: capture.observed, idColumn: nil))
        }
        while try statement.step() {
            session.recorder.record(try statement.readBool(1) ? .insert : .update, table: table, id: Int(try statement.readInt64(0)))
        }
    }

    /// The upsert where no clause names the conflict target (MySQL): each row is inserted, and one
    /// whose insert collides with a stored row is updated by the target instead (kept, when nothing
    /// is to be updated). The database names only one of the keys a row collides on, not always the
    /// target's, so a collision on another key counts as the target's when a row with the target's
    /// values exists; otherwise it fails, as it does elsewhere. Runs inside a transaction, so the
    /// lock the collision takes keeps the row until it is updated.
    private func insertOrUpdate<A: CRUDModel>(_ instances: [A], target: [Int], keys: Set<String>, updated: [Int],
                                              in session: Session) throws -> Int {
        let schema = A.crudSchema
        let insertCapture = session.changeCapture(for: schema, writing: .insert)
        let insert = try render(.insert(schema, columns: nil, rows: 1, returning: insertCapture.returning)).sql
        let update = updated.isEmpty ? nil : try render(.updateRow(schema, columns: updated, matching: target)).sql
        let existing = try render(.columnOfRow(schema, target[0], matching: target)).sql
        var written = 0
        for instance in instances {
            let collision = try session.attemptStatement(insert, expected: { $0.kind == .uniqueViolation }) {
                var binder = $0
                try instance.crudBindRow(to: &binder, from: 0)
                try session.step($0, writing: .insert, in: schema.name, capture: insertCapture)
            }
            if let collision {
                let onTarget = try collision.constraint.map(keys.contains) == true || session.withStatement(existing) { statement in
                    var binder = statement
                    try instance.crudBind(columns: target, to: &binder)
                    return try statement.step()
                }
                guard onTarget else { throw collision }
                guard let update else { continue }
                func write(_ capture: CRUDChangeCapture) throws {
                    try session.withStatement(update) { statement in
                        var binder = statement
                        try instance.crudBind(columns: updated, to: &binder)
                        try instance.crudBind(columns: target, to: &binder, from: updated.count)
                        try session.step(statement, writing: .update, in: schema.name, capture: capture)
                        guard statement.changedRows == 1 else {
                            throw CRUDSQLExeError("upsert: the stored row of \(A.self) that a new one collided with was gone before it could be "
                                + "updated; run the upsert again", sql: update)
                        }
                    }
                }
                let capture = session.changeCapture(for: schema, writing: .update)
                if let key = capture.selectedIDColumn {
                    try session.write(recording: .update, in: schema.name, idsOf: try render(.columnOfRow(schema, key, matching: target)).sql,
                                      bind: { try instance.crudBind(columns: target, to: &$0) }) { try write(.unobserved) }
                } else {
                    try write(capture)
                }
            }
            written += 1
        }
        return written
    }
}
