/// The rows of a query that joins, or a page of a query's rows with the count of every page's: the
/// statements of one read that must see the same rows, run in one snapshot (the caller's
/// transaction, or a read-only one of their own). Each join's children are read first, then the
/// root rows, which take their children from them; a page counts before it reads.
@usableFromInline
struct CRUDSnapshotRowsOperation<Model: CRUDModel, Connection: CRUDConnection>: CRUDOperation {
    /// What the caller gets: the count of `counted`'s rows (0 when there is none to count) and the rows.
    @usableFromInline typealias Result = (total: Int, rows: [Model])

    @usableFromInline
    enum Stage {
        case start, count, children, root, end
    }

    @usableFromInline let plan: CRUDQueryPlan
    /// At most how many root rows to read; the plan's own limit when `nil`.
    @usableFromInline let limit: CRUDQueryPlan.Limit?
    /// The plan whose rows a page counts.
    @usableFromInline let counted: CRUDQueryPlan?
    @usableFromInline var stage = Stage.start
    /// The root rows' statement, made before the snapshot begins, so that a plan that locks its
    /// rows outside the caller's transaction is refused.
    @usableFromInline var root = CRUDStatementText("")
    @usableFromInline var joins: [JoinedChildren<Connection>?] = []
    /// The next of the plan's joins whose children are read.
    @usableFromInline var join = 0
    @usableFromInline var ownsSnapshot = false
    @usableFromInline var total = 0
    /// The root rows, kept while the snapshot ends.
    @usableFromInline var rows: [Model] = []

    /// The rows of `plan`, at most `limit`; with `counted`, the count of its rows too.
    @inlinable
    init(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit? = nil, counting counted: CRUDQueryPlan? = nil) {
        self.plan = plan
        self.limit = limit
        self.counted = counted
    }

    @inlinable var access: CRUDAccess { .read }

    /// Not inlined: it runs once a statement, and reads the plan's joins, which are the module's.
    @usableFromInline
    mutating func next(_ executor: CRUDExecutor<Connection>, on session: CRUDSession<Connection>) throws -> CRUDStep<Result> {
        switch stage {
        case .start:
            let limit = limit ?? plan.limit
            root = try executor.selectQuery(plan, limit: limit, inTransaction: session.transactionDepth > 0)
            joins = try executor.joinedChildren(plan, limit: limit, on: session)
            stage = counted == nil ? .children : .count
            guard session.transactionDepth == 0 else { return try next(executor, on: session) }
            ownsSnapshot = true
            return .begin(executor.dialect.snapshotTransaction)
        case .count:
            return .statement(try executor.render(.count(counted!)))
        case .children:
            guard join < plan.joins.count, let children = joins[plan.joins[join].relation] else {
                // Every join's children are in.
                stage = .root
                return .statement(root)
            }
            return .statement(CRUDStatementText(children.sql, children.parameters))
        case .root, .end:
            if ownsSnapshot {
                ownsSnapshot = false
                return .commit
            }
            return .finished((total, rows))
        }
    }

    @inlinable
    mutating func read(_ statement: Connection.Statement, on session: CRUDSession<Connection>) throws -> Result? {
        switch stage {
        case .count:
            total = try CRUDExecutor<Connection>.readCount(statement)
            stage = .children
        case .children:
            try loadChildren(from: statement)
        case .root:
            let rows: [Model] = joins.isEmpty ? try CRUDExecutor<Connection>.readAll(statement)
                : try CRUDExecutor<Connection>.readAll(statement, joins: joins)
            // Without a snapshot of its own to end, the read is done.
            guard ownsSnapshot else { return (total, rows) }
            stage = .end
            self.rows = rows
        case .start, .end:
            break
        }
        return nil
    }

    /// Reads the children of the next join.
    /// - Throws: `CRUDSQLExeError`, `CRUDDecoderError` naming the child model.
    @usableFromInline
    mutating func loadChildren(from statement: Connection.Statement) throws {
        let join = plan.joins[join]
        try joins[join.relation]?.load(from: statement, as: join.model)
        self.join += 1
    }
}
