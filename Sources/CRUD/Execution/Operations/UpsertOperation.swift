/// An upsert: each row inserted in order, and one whose `target` columns match a stored row sets the
/// `updated` columns instead (keeps the stored row when there are none). The target is checked to be
/// the primary key or a unique constraint before anything is written (the databases tell a target
/// that is not a key only by a general error code). Where the dialect's conflict clause names the
/// target, each row is one statement; where none does (MySQL), each row is inserted, and one whose
/// insert collides with a stored row is updated by the target instead: the database names only one
/// of the keys a row collides on, not always the target's, so a collision on another key counts as
/// the target's when a row with the target's values exists, and otherwise fails, as it does
/// elsewhere. Several statements run in one transaction, MySQL's always, so the lock a collision
/// takes keeps the row until it is updated. Its result is how many rows were inserted or updated.
@usableFromInline
struct CRUDUpsertOperation<Model: CRUDModel, Connection: CRUDConnection>: CRUDOperation {
    /// Which statement of the upsert runs now.
    @usableFromInline
    enum Statement {
        /// The table's primary key and unique constraints, from the catalog.
        case uniqueKeys
        /// A row's upsert with the conflict clause.
        case upsert
        /// A row's plain insert (MySQL), whose collision the operation handles.
        case insert
        /// Whether a stored row has the colliding row's target values.
        case existing
        /// The id of the stored row about to be updated, selected locked, for observers.
        case selectedID
        /// The stored row's update.
        case update
    }

    @usableFromInline let instances: [Model]
    /// The target and updated columns, or the mistake found naming them.
    @usableFromInline let requested: Swift.Result<(target: [Int], updated: [Int]), any Error>

    @usableFromInline var target: [Int] = []
    @usableFromInline var updated: [Int] = []
    @usableFromInline var names: [String] = []
    @usableFromInline var askedKeys = false
    @usableFromInline var keys: Set<String> = []
    @usableFromInline var rows: [Model] = []
    @usableFromInline var started = false
    @usableFromInline var inTransaction = false
    /// Every row's statement, where the clause names the target; the insert, the update and the
    /// existence check of MySQL's row by row.
    @usableFromInline var upsertSQL = ""
    @usableFromInline var insertSQL = ""
    @usableFromInline var updateSQL: String?
    @usableFromInline var existingSQL = ""
    @usableFromInline var capture = CRUDChangeCapture(observed: false, idColumn: nil)
    @usableFromInline var updateCapture = CRUDChangeCapture(observed: false, idColumn: nil)
    @usableFromInline var returnsIDs = false
    @usableFromInline var rowByRow = false
    // Where the upsert is: the row, and what is known of it.
    @usableFromInline var row = 0
    @usableFromInline var current = Statement.upsert
    @usableFromInline var collision: CRUDSQLExeError?
    @usableFromInline var onTarget: Bool?
    @usableFromInline var selectedIDs: [Int]?
    @usableFromInline var rowStarted = false
    /// Whether the current row's update ran.
    @usableFromInline var rowUpdated = false
    @usableFromInline var written = 0

    /// Upserts `instances` on the target and with the updated columns `columns` gives (worked out
    /// inside the runner's boundary).
    @usableFromInline
    init(_ instances: [Model], columns: () throws -> (target: [Int], updated: [Int])) {
        self.instances = instances
        requested = Swift.Result { try columns() }
    }

    @inlinable var access: CRUDAccess { .write }

    /// In the caller's task where the dialect's clause names the target and the insert returns the
    /// ids observers need.
    @usableFromInline
    func canAwaitServer(on executor: CRUDExecutor<Connection>) -> Bool {
        executor.dialect.canReturn(from: .insert) && executor.upsertsNameTarget
    }

    @usableFromInline
    mutating func settle(_ executor: CRUDExecutor<Connection>) throws -> Int? {
        let columns = try requested.get()
        target = columns.target
        // Ignoring a conflict keeps the stored row as it is, its `updatedAt` too.
        updated = columns.updated.isEmpty ? [] : Model.crudColumns(stamping: columns.updated, for: .update) ?? []
        names = target.map { Model.crudSchema.columns[$0].name }
        return instances.isEmpty ? 0 : nil
    }

    @usableFromInline
    mutating func next(_ executor: CRUDExecutor<Connection>, on session: CRUDSession<Connection>) throws -> CRUDStep<Int> {
        let schema = Model.crudSchema
        if !started {
            if !askedKeys, session.foundKeys(of: schema.name, exactly: names) == nil {
                askedKeys = true
                current = .uniqueKeys
                let query = executor.dialect.uniqueKeysQuery(ofTable: schema.name)
                return .statement(CRUDStatementText(query.sql, query.parameters))
            }
            keys = session.foundKeys(of: schema.name, exactly: names) ?? []
            guard !keys.isEmpty else {
                throw CRUDSQLExeError(
                    "upsert: the conflict target (\(names.joined(separator: ", "))) of \(Model.self) is neither its primary key nor a unique "
                        + "constraint, so the database cannot tell which row conflicts; declare .unique(…) in crudConstraints or name the primary key",
                    kind: .conflictTargetNotUnique, table: schema.name)
            }
            started = true
            rows = Model.crudStampedForInsert(instances)
            capture = session.changeCapture(for: schema, writing: .insert)
            rowByRow = !executor.upsertsNameTarget
            if rowByRow {
                insertSQL = try executor.render(.insert(schema, columns: nil, rows: 1, returning: capture.returning)).sql
                updateSQL = updated.isEmpty ? nil : try executor.render(.updateRow(schema, columns: updated, matching: target)).sql
                existingSQL = try executor.render(.columnOfRow(schema, target[0], matching: target)).sql
                updateCapture = session.changeCapture(for: schema, writing: .update)
            } else {
                returnsIDs = capture.idColumn != nil && executor.dialect.upsertInsertedFlag != nil
                upsertSQL = try executor.render(.upsert(schema, target: target, updated: updated, returningID: returnsIDs ? capture.idColumn : nil)).sql
            }
            if rowByRow || rows.count > 1 {
                inTransaction = true
                return .begin(.default)
            }
        }
        if rowByRow, let step = try nextRowByRow(executor) { return step }
        if !rowByRow, row < rows.count {
            current = .upsert
            return .statement(CRUDStatementText(upsertSQL))
        }
        if inTransaction {
            inTransaction = false
            return .commit
        }
        return .finished(written)
    }

    /// The next statement of MySQL's row-by-row upsert; `nil` once every row is written.
    mutating func nextRowByRow(_ executor: CRUDExecutor<Connection>) throws -> CRUDStep<Int>? {
        while row < rows.count {
            guard rowStarted else {
                rowStarted = true
                current = .insert
                return .attempt(CRUDStatementText(insertSQL))
            }
            if let collision {
                if onTarget == nil, let constraint = collision.constraint, keys.contains(constraint) { onTarget = true }
                guard let onTarget else {
                    current = .existing
                    return .statement(CRUDStatementText(existingSQL))
                }
                guard onTarget else { throw collision }
                if let updateSQL, !rowUpdated {
                    if let key = updateCapture.selectedIDColumn, selectedIDs == nil {
                        selectedIDs = []
                        current = .selectedID
                        let ids = try executor.render(.columnOfRow(Model.crudSchema, key, matching: target)).sql
                        return .statement(CRUDStatementText(ids + executor.dialect.rowLock(.update)))
                    }
                    current = .update
                    return .statement(CRUDStatementText(updateSQL))
                }
            }
            // Inserted or updated; a stored row kept as it was does not count.
            if collision == nil || rowUpdated { written += 1 }
            row += 1
            rowStarted = false
            collision = nil
            onTarget = nil
            selectedIDs = nil
            rowUpdated = false
        }
        return nil
    }

    @inlinable
    mutating func bind(_ binder: inout Connection.Statement, on session: CRUDSession<Connection>) throws {
        switch current {
        case .uniqueKeys: break
        case .upsert, .insert: try rows[row].crudBindRow(to: &binder, from: 0)
        case .existing, .selectedID: try rows[row].crudBind(columns: target, to: &binder)
        case .update:
            try rows[row].crudBind(columns: updated, to: &binder)
            try rows[row].crudBind(columns: target, to: &binder, from: updated.count)
        }
    }

    @usableFromInline
    mutating func read(_ statement: Connection.Statement, on session: CRUDSession<Connection>) throws -> Int? {
        let table = Model.crudSchema.name
        switch current {
        case .uniqueKeys:
            var all: [String: Set<String>] = [:]
            while try statement.step() { all[try statement.readText(0), default: []].insert(try statement.readText(1)) }
            _ = session.keys(of: table, exactly: names, among: all)
        case .upsert:
            if returnsIDs {
                while try statement.step() {
                    session.recorder.record(try statement.readBool(1) ? .insert : .update, table: table, id: Int(try statement.readInt64(0)))
                }
            } else {
                try session.step(statement, writing: .insert, in: table, capture: CRUDChangeCapture(observed: capture.observed, idColumn: nil))
            }
            written += statement.changedRows
            row += 1
        case .insert:
            try session.step(statement, writing: .insert, in: table, capture: capture)
        case .existing:
            onTarget = try statement.step()
        case .selectedID:
            while try statement.step() { selectedIDs?.append(Int(try statement.readInt64(0))) }
        case .update:
            try session.step(statement, writing: .update, in: table, capture: selectedIDs == nil ? updateCapture : .unobserved)
            guard statement.changedRows == 1 else {
                throw CRUDSQLExeError("upsert: the stored row of \(Model.self) that a new one collided with was gone before it could be "
                    + "updated; run the upsert again", sql: updateSQL)
            }
            if let selectedIDs { session.record(.update, in: table, ids: selectedIDs) }
            rowUpdated = true
        }
        return nil
    }

    /// A failed insert of MySQL's row by row that collided with a stored row on a unique key: the
    /// operation goes on with it; any other failure throws.
    @usableFromInline
    mutating func handle(_ failure: CRUDSQLExeError) -> Bool {
        guard current == .insert, failure.kind == .uniqueViolation else { return false }
        collision = failure
        return true
    }

    /// The conflict clause's statement runs once for each row.
    @inlinable var runsAgain: Bool {
        mutating get { current == .upsert && row < rows.count }
    }
}
