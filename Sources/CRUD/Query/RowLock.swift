/// How a query locks the rows it reads until its transaction ends: `query.forUpdate()`,
/// `query.forShare()`.
public enum CRUDRowLock: Sendable, Equatable {
    /// No other transaction may change, delete or lock the rows (`FOR UPDATE`): for a
    /// read-modify-write.
    case update
    /// No other transaction may change or delete the rows; others may share the lock (`FOR SHARE`,
    /// MySQL's `LOCK IN SHARE MODE`).
    case share
}

/// A locking step, `forUpdate()` or `forShare()`: the query's root rows stay locked until the
/// transaction ends. It comes last, before the terminal operation.
public struct RowLock<OverAllForm: CRUDModel, Parent: TableProtocol>: TableProtocol, SelectAble where Parent.OverAllForm == OverAllForm {
    public typealias Form = Parent.Form
    /// The database the chain runs on.
    public let database: Parent.DatabaseType
    /// What the chain has said so far.
    public let _plan: CRUDQueryPlan

    @usableFromInline
    init(database: Parent.DatabaseType, plan: CRUDQueryPlan) {
        self.database = database
        _plan = plan
    }
}

extension SelectAble {
    /// Locks the rows the query reads (its root rows, not the joins' children) until the transaction
    /// ends, so that no other transaction changes them in between (`SELECT … FOR UPDATE`): the read
    /// of a read-modify-write, inside `transaction { }`. On SQLite, which locks the whole database
    /// for a writing transaction (CRUD begins them `IMMEDIATE`), the transaction itself is the
    /// lock and the query is as it is. `count()` counts without locking.
    ///
    ///     try await db.transaction { tx in
    ///         let counter = try await tx.table(Counter.self).where(\Counter.id == 1).forUpdate().first()!
    ///         try await tx.table(Counter.self).where(\Counter.id == 1).update(Counter(id: 1, value: counter.value + 1))
    ///     }
    ///
    /// Reading outside a transaction throws `CRUDSQLGenError`: the lock would end with the statement.
    public func forUpdate() -> RowLock<OverAllForm, Self> {
        locking(.update)
    }

    /// Locks the rows the query reads against changes until the transaction ends, while other
    /// transactions may read and share-lock them too (`FOR SHARE`; MySQL's `LOCK IN SHARE MODE`).
    /// As `forUpdate()` otherwise.
    public func forShare() -> RowLock<OverAllForm, Self> {
        locking(.share)
    }

    private func locking(_ lock: CRUDRowLock) -> RowLock<OverAllForm, Self> {
        var plan = self.plan
        plan.rowLock = lock
        return RowLock(database: database, plan: plan)
    }
}
