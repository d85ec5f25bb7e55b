/// One page of a query's results, with how many results the query has in all: what
/// `page(_:size:)` returns. `Encodable` when the model is, so a handler can return it as it is.
public struct CRUDPage<Model: CRUDModel> {
    /// The page's results, in the query's order.
    public let items: [Model]
    /// How many results the query has in all, over every page.
    public let total: Int
    /// The page's number, from 1.
    public let number: Int
    /// The most results a page holds.
    public let size: Int

    /// A page of `items`, page `number` of `size` results, of `total` in all: for code that pages
    /// something else the same way (an in-memory store, a test double).
    public init(items: [Model], total: Int, number: Int, size: Int) {
        self.items = items
        self.total = total
        self.number = number
        self.size = size
    }

    /// How many pages the results fill: 0 when there are none.
    public var pageCount: Int { total / size + (total % size == 0 ? 0 : 1) }
}

extension CRUDPage: Sendable where Model: Sendable {}
extension CRUDPage: Equatable where Model: Equatable {}
extension CRUDPage: Encodable where Model: Encodable {}

extension SelectAble {
    /// Page `number` (from 1) of the query's results, `size` to a page, and how many results there
    /// are in all. The order is made stable: the table's primary key is added as the last term of
    /// the query's order (a query without an order is ordered by it), so that rows with equal
    /// order keys do not move between pages. On a joined query the pages are of root rows, each
    /// with its children. The total and the page read one snapshot: the caller's transaction, or a
    /// read-only one of their own.
    /// - Throws: `CRUDSQLGenError` for a number or size below 1, a query with a limit of its own
    ///   (the page sets it), or a table without a primary key and no order; `CRUDSQLExeError`;
    ///   `CRUDDecoderError`.
    @inlinable
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func page(_ number: Int, size: Int) throws -> CRUDPage<OverAllForm> {
        // Inlinable, as `select()` is: the rows are read by the model's generated reader
        // specialized in the caller's module, not through generic code at a few thousand
        // instructions a row.
        let paged = try executor.building { try plan.paged(number, size: size) }
        let page = try executor.run(CRUDSnapshotRowsOperation<OverAllForm, DatabaseType.Configuration.Connection>(
            paged.rows, limit: paged.limit, counting: paged.counted))
        return CRUDPage(items: page.rows, total: page.total, number: number, size: size)
    }

    /// The same, waiting for a connection without blocking a thread (and, on PostgreSQL and MySQL,
    /// for the server's answers).
    /// - Throws: as the synchronous form.
    @inlinable
    public func page(_ number: Int, size: Int) async throws -> CRUDPage<OverAllForm> {
        let paged = try executor.building { try plan.paged(number, size: size) }
        let page = try await executor.run(CRUDSnapshotRowsOperation<OverAllForm, DatabaseType.Configuration.Connection>(
            paged.rows, limit: paged.limit, counting: paged.counted))
        return CRUDPage(items: page.rows, total: page.total, number: number, size: size)
    }
}

extension CRUDQueryPlan {
    /// This plan for page `number` of `size`, ordered stably; the limit that selects the page; and
    /// the plan that counts every page's rows.
    /// - Throws: `CRUDSQLGenError` for a number or size below 1, a limit of the plan's own, or no
    ///   order to make stable.
    @usableFromInline
    func paged(_ number: Int, size: Int) throws -> (rows: CRUDQueryPlan, limit: Limit, counted: CRUDQueryPlan) {
        try validate()
        guard number >= 1, size >= 1 else {
            throw CRUDSQLGenError("page(_:size:): pages are numbered from 1 and hold at least one row (got page \(number) of size \(size))")
        }
        guard limit == nil else {
            throw CRUDSQLGenError("page(_:size:): the query has a limit of its own, and a page sets it: remove the limit before the joins")
        }
        let (skip, overflow) = (number - 1).multipliedReportingOverflow(by: size)
        guard !overflow else { throw CRUDSQLGenError("page(_:size:): page \(number) of size \(size) starts past the largest row count") }
        var rows = self
        if let key = root.crudSchema.primaryKey {
            // A term by a joined column (`orderParents`) at the key's position is no tie-break.
            if !order.contains(where: { $0.column == key && $0.joined == nil }) { rows.order.append(Order(column: key, descending: false)) }
        } else if order.isEmpty {
            throw CRUDSQLGenError("page(_:size:): \(root.crudSchema.name) has no primary key to keep its rows in one order from page to "
                + "page: order the query by columns that tell every row apart")
        }
        var counted = self
        counted.order = []
        return (rows, Limit(max: size, skip: skip), counted)
    }
}
