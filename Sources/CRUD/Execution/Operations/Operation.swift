/// One public operation as a value that decides what runs and does no I/O: given the session it
/// runs on, it says which statement runs next (or which transaction level opens or commits), binds
/// its own values, and reads each statement's rows. A runner does the I/O: the blocking one
/// (`CRUDExecutor.run(_:)`) or the awaiting one (`await CRUDExecutor.run(_:)`), which are the only
/// two places that step an operation, so a public call's synchronous and asynchronous forms run the
/// same decisions and cannot drift. Operations are generic over what they read, and inlinable, so
/// a model's generated reader and binder are called directly in the caller's module.
@usableFromInline
protocol CRUDOperation {
    associatedtype Connection: CRUDConnection
    associatedtype Result

    /// Which connection the operation needs from the pool.
    var access: CRUDAccess { get }

    /// Whether the operation can run in an async caller's own task, waiting for the server's
    /// answers without a thread, on `executor`'s database (reads always can).
    func canAwaitServer(on executor: CRUDExecutor<Connection>) -> Bool

    /// What the operation gives without a connection, when it needs no statement at all (an insert
    /// of no rows); `nil` when it runs. Asked once, before a connection is leased, where the
    /// operation also checks what it was given.
    /// - Throws: `CRUDSQLGenError` for a mistake in what the operation was given.
    mutating func settle(_ executor: CRUDExecutor<Connection>) throws -> Result?

    /// What runs next on `session`, given what ran before: a statement, a transaction level, or
    /// nothing more, with the result.
    /// - Throws: `CRUDSQLGenError` for a mistake found deciding (the chain's, rendered here);
    ///   `CRUDSQLExeError`.
    mutating func next(_ executor: CRUDExecutor<Connection>, on session: CRUDSession<Connection>) throws -> CRUDStep<Result>

    /// Binds the operation's own values to the statement `next` asked for, after the values the
    /// step itself carries. Mutating, as `runsAgain` is, so that the runner reaches the operation in
    /// place: a call on a copy copied the whole operation (its rows) for every statement run.
    /// - Throws: `CRUDEncoderError`, `CRUDSQLGenError`.
    mutating func bind(_ binder: inout Connection.Statement, on session: CRUDSession<Connection>) throws

    /// Steps the statement `next` asked for, which the runner has run (or whose first step runs
    /// it), and reads its rows: the operation's result when this read completes it (a read of one
    /// statement, whose runner then returns at once, without a copy of the rows or another turn),
    /// `nil` when the operation goes on.
    /// - Throws: `CRUDSQLExeError`, `CRUDDecoderError`.
    mutating func read(_ statement: Connection.Statement, on session: CRUDSession<Connection>) throws -> Result?

    /// Whether the operation goes on after `failure` of the statement of an `.attempt` step (an
    /// upsert's insert that collided with a stored row); `false` throws it.
    mutating func handle(_ failure: CRUDSQLExeError) -> Bool

    /// Whether the statement of the `.statement` step just read runs once more, reset and bound
    /// with the operation's next values: an insert's next rows of the same count, the next row of
    /// an upsert. Prepared and logged once, it costs a run and no more. Asked of operations whose
    /// reads give no result.
    var runsAgain: Bool { mutating get }
}

extension CRUDOperation {
    @inlinable
    func canAwaitServer(on executor: CRUDExecutor<Connection>) -> Bool { true }

    @inlinable
    mutating func bind(_ binder: inout Connection.Statement, on session: CRUDSession<Connection>) throws {}

    @inlinable
    mutating func settle(_ executor: CRUDExecutor<Connection>) throws -> Result? { nil }

    @inlinable
    mutating func handle(_ failure: CRUDSQLExeError) -> Bool { false }

    @inlinable var runsAgain: Bool {
        mutating get { false }
    }
}

/// What an operation asks its runner to do next.
@usableFromInline
enum CRUDStep<Result> {
    /// Prepare the text's SQL (from the connection's cache), bind its parameters, then the
    /// operation's own values, run it and let the operation read it.
    case statement(CRUDStatementText)
    /// The same with the statement the connection keeps at `slot`, prepared from the SQL on its
    /// first use and found by index afterwards; the operation binds every value.
    case kept(CRUDStatementSlot)
    /// The same, but a failure the operation handles (`handle(_:)`) goes to it instead of being
    /// thrown; the database undid the failed statement, and its recorded changes are dropped.
    case attempt(CRUDStatementText)
    /// Open a transaction of the mode, or a savepoint inside the session's open one. The runner
    /// rolls back every level the operation opened and did not commit when anything throws.
    case begin(TransactionMode)
    /// Commit the innermost level the operation opened.
    case commit
    /// Nothing more: the operation gives its caller `Result`.
    case finished(Result)
}

/// How an operation reads a statement's rows into what it returns.
@usableFromInline
protocol CRUDStatementReader {
    associatedtype Connection: CRUDConnection
    associatedtype Value

    /// Steps `statement` and reads what its rows give.
    /// - Throws: `CRUDSQLExeError`, `CRUDDecoderError`.
    func read(_ statement: Connection.Statement) throws -> Value
}

/// Reads the first row as the model, `nil` when there is none.
@usableFromInline
struct CRUDFirstRowReader<Model: CRUDModel, Connection: CRUDConnection>: CRUDStatementReader {
    @inlinable init() {}

    @inlinable @inline(__always)
    func read(_ statement: Connection.Statement) throws -> Model? {
        try CRUDExecutor<Connection>.readFirst(statement)
    }
}

/// Reads every row as the model.
@usableFromInline
struct CRUDAllRowsReader<Model: CRUDModel, Connection: CRUDConnection>: CRUDStatementReader {
    @inlinable init() {}

    @inlinable @inline(__always)
    func read(_ statement: Connection.Statement) throws -> [Model] {
        try CRUDExecutor<Connection>.readAll(statement)
    }
}

/// Reads the rows as a closure does: for reads made once in a while (a count, an aggregate, raw
/// SQL's rows), where the closure's context costs nothing that matters.
@usableFromInline
struct CRUDClosureReader<Connection: CRUDConnection, Value>: CRUDStatementReader {
    @usableFromInline let body: (Connection.Statement) throws -> Value

    @inlinable init(_ body: @escaping (Connection.Statement) throws -> Value) {
        self.body = body
    }

    @inlinable
    func read(_ statement: Connection.Statement) throws -> Value {
        try body(statement)
    }
}
