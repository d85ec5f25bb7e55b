/// What an upsert does with a row that conflicts with a stored one on the conflict target.
public struct CRUDConflictAction<Model: CRUDModel> {
    enum Action {
        case ignore
        case replace
        case update([PartialKeyPath<Model>])
    }

    let action: Action

    /// Keep the stored row; the new one is dropped.
    public static var ignore: CRUDConflictAction { CRUDConflictAction(action: .ignore) }
    /// Set every column but the conflict target to the new row's values (an update: the row keeps
    /// its identity, and observers see an update).
    public static var replace: CRUDConflictAction { CRUDConflictAction(action: .replace) }
    /// Set only the named columns to the new row's values, as `setKeys:` does for an update.
    public static func update(_ first: PartialKeyPath<Model>, _ rest: PartialKeyPath<Model>...) -> CRUDConflictAction {
        CRUDConflictAction(action: .update([first] + rest))
    }
}

extension Table {
    /// Inserts the rows; a row whose `onConflict` columns (the primary key, or the columns of a
    /// unique constraint) match a stored row is handled by `action` instead. All rows are written
    /// in one transaction, one at a time in order, so a later row of the same key wins as it would
    /// on its own, on every backend.
    /// - Returns: how many rows were inserted or updated (ignored ones do not count).
    /// - Throws: `CRUDSQLGenError` for a key path that names no column; `CRUDSQLExeError` whose
    ///   `kind` is `.conflictTargetNotUnique` when the target is not the primary key or a unique
    ///   constraint (nothing is written then), or for another failure; `CRUDEncoderError`.
    @discardableResult
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func upsert(_ instances: [A], onConflict target: PartialKeyPath<A>, _ moreTarget: PartialKeyPath<A>...,
                       do action: CRUDConflictAction<A> = .replace) throws -> Int {
        try upsert(instances, target: [target] + moreTarget, action: action)
    }

    /// Inserts the row, or handles a conflict with a stored one as `action` says.
    @discardableResult
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func upsert(_ instance: A, onConflict target: PartialKeyPath<A>, _ moreTarget: PartialKeyPath<A>...,
                       do action: CRUDConflictAction<A> = .replace) throws -> Int {
        try upsert([instance], target: [target] + moreTarget, action: action)
    }

    func upsert(_ instances: [A], target keyPaths: [PartialKeyPath<A>], action: CRUDConflictAction<A>) throws -> Int {
        try executor.run(CRUDUpsertOperation<A, D.Configuration.Connection>(instances) { try Self.upsertColumns(keyPaths, action) })
    }

    /// `upsert(_:target:action:)` for an async caller: awaiting the server in the task where the
    /// database can, on the connection's queue otherwise.
    /// - Throws: as the synchronous form.
    func upsert(_ instances: [A], target keyPaths: [PartialKeyPath<A>], action: CRUDConflictAction<A>) async throws -> Int {
        try await executor.run(CRUDUpsertOperation<A, D.Configuration.Connection>(instances) { try Self.upsertColumns(keyPaths, action) })
    }

    /// The columns of the conflict target `keyPaths`, and those `action` updates.
    /// - Throws: `CRUDSQLGenError` for a key path that is not a stored column.
    private static func upsertColumns(_ keyPaths: [PartialKeyPath<A>], _ action: CRUDConflictAction<A>) throws -> (target: [Int], updated: [Int]) {
        let target = try A.crudColumns(keyPaths, for: "upsert")
        let updated: [Int] = switch action.action {
        case .ignore: []
        case .replace: A.crudSchema.columns.indices.filter { !target.contains($0) }
        case let .update(keys): try A.crudColumns(keys, for: "upsert")
        }
        return (target, updated)
    }
}
