/// A row value could not be turned into a model property: NULL in a non-optional column, a number
/// out of the property's range, text that is not a URL, and the like.
public struct CRUDDecoderError: CRUDReportableError, CustomStringConvertible, Sendable {
    /// What went wrong and, where it can say, what to do about it.
    public let msg: String
    public var isReported = false
    /// An error saying `msg`.
    public init(_ msg: String) { self.msg = msg }
    public var description: String { "CRUDDecoderError: \(msg)" }

    /// What readers say of NULL in a column whose property is not optional.
    public static let nullProblem = "NULL where a value is required (the property is not optional)"

    /// This error with the model it was reading put first: `reading Person: column "age": …`, and the
    /// table too where its name differs from the model's.
    @usableFromInline
    func reading(_ model: any CRUDModel.Type) -> CRUDDecoderError {
        let name = String(describing: model)
        let table = model.crudSchema.name
        return CRUDDecoderError("reading \(name)\(table == name ? "" : " (table \"\(table)\")"): \(msg)")
    }
}

/// A model property could not be stored: a `UInt64` above `Int64.max`, a column position that does
/// not exist, and the like.
public struct CRUDEncoderError: CRUDReportableError, CustomStringConvertible, Sendable {
    /// What went wrong and, where it can say, what to do about it.
    public let msg: String
    public var isReported = false
    /// An error saying `msg`.
    public init(_ msg: String) { self.msg = msg }
    public var description: String { "CRUDEncoderError: \(msg)" }
}

/// A query could not be turned into SQL: a key path that names no column, or a type that is not part
/// of the query; a limit below zero; and the like. Nothing was sent to the database.
public struct CRUDSQLGenError: CRUDReportableError, CustomStringConvertible, Sendable {
    /// What went wrong and, where it can say, what to do about it.
    public let msg: String
    public var isReported = false
    /// An error saying `msg`.
    public init(_ msg: String) { self.msg = msg }
    public var description: String { "CRUDSQLGenError: \(msg)" }
}

/// The database refused or failed a statement, or could not be opened.
public struct CRUDSQLExeError: CRUDReportableError, CustomStringConvertible, Sendable {
    /// A readable summary: what failed, where, and the database's own message.
    public let msg: String
    /// The statement that failed, when there was one.
    public let sql: String?
    /// The database's own error code: SQLite's extended result code, PostgreSQL's SQLSTATE, or
    /// MySQL's error number.
    public let code: String?
    /// The database's own message.
    public let databaseMessage: String?
    /// What sort of failure it was, where the driver can tell: a constraint violation by kind.
    public let kind: Kind
    /// The violated constraint's name, where the database tells it (PostgreSQL; SQLite for CHECK).
    public let constraint: String?
    /// The table involved, where the database tells it (or the statement shows it).
    public let table: String?
    public var isReported = false

    /// What sort of failure a `CRUDSQLExeError` is, the same on every backend, so that
    /// `catch let error as CRUDSQLExeError where error.kind == .uniqueViolation` works anywhere.
    ///
    /// Each driver sets it from the database's own code (SQLite's extended result code, PostgreSQL's
    /// SQLSTATE, MySQL's error number), which `code` keeps; the Errors article lists the codes per driver.
    public enum Kind: Sendable, Equatable, CaseIterable {
        /// A UNIQUE or PRIMARY KEY constraint: the values already exist.
        case uniqueViolation
        /// A FOREIGN KEY constraint: the referenced row is missing, or still referenced.
        case foreignKeyViolation
        /// NOT NULL: a non-optional column got NULL.
        case notNullViolation
        /// A CHECK constraint.
        case checkViolation
        /// Another connection holds the lock the statement needs, and waiting for it timed out (or
        /// the statement asked not to wait): running it again later may succeed.
        case busyOrLocked
        /// The database, the connection or the transaction only reads.
        case readOnly
        /// The connection to the server was lost; the pool reconnects on the next call outside a
        /// transaction.
        case connectionLost
        /// The SQL does not parse or names a table, column or function that does not exist.
        case syntaxOrSchema
        /// The transaction lost a race with another one (a serialization failure or a deadlock)
        /// and was rolled back: run the whole transaction again.
        case serializationFailure
        /// An upsert's conflict target is neither the primary key nor a unique constraint (found
        /// before anything is written).
        case conflictTargetNotUnique
        /// The database was shut down (`Database.shutdown()`): it runs nothing more.
        case shutDown
        /// The call's statement ran past its statement timeout (the configuration's
        /// `statementTimeout`, or `Database.withStatementTimeout`) and was cancelled: nothing of it
        /// is committed, and the connection is usable again.
        case timedOut
        /// What stands between CRUD and the database does not match the configuration: on
        /// PostgreSQL, a connection pooler in transaction mode (pgbouncer's `pool_mode =
        /// transaction`) without `transactionPooling`, found when the server session lacks a
        /// statement the connection prepared. The statement did not run; running it again does
        /// not help: change the configuration.
        case misconfigured
        /// Anything else; `code` has the database's own code.
        case other
    }

    /// An error saying `msg`, with what the database told, as the properties of the same names hold it.
    public init(_ msg: String, sql: String? = nil, code: String? = nil, databaseMessage: String? = nil,
                kind: Kind = .other, constraint: String? = nil, table: String? = nil) {
        self.msg = msg
        self.sql = sql
        self.code = code
        self.databaseMessage = databaseMessage
        self.kind = kind
        self.constraint = constraint
        self.table = table
    }

    public var description: String {
        var text = "CRUDSQLExeError: \(msg)"
        if let sql { text += " [SQL: \(sql)]" }
        return text
    }
}

/// The library's errors: each is handed to the database's `didFail` once, when an operation first
/// throws it; `isReported` marks it so that an enclosing operation (a transaction) rethrowing it does
/// not hand it over again.
public protocol CRUDReportableError: Error {
    /// Whether `didFail` has been given this error.
    var isReported: Bool { get set }
}

extension CRUDSQLExeError {
    /// The table an INSERT, UPDATE or DELETE that CRUD wrote names first (always quoted, in double
    /// quotes or backticks): what a driver reports as `table` where the database's message does not
    /// name it.
    @_spi(CRUDDriver) public static func tableWritten(by sql: String) -> String? {
        SQLNames.firstQuoted(in: sql)
    }
}
