@_spi(CRUDDriver) import CRUD

/// The SQLSTATEs CRUD tells apart, as an enum so that a failure's kind is found by comparing
/// codes, never messages.
enum PostgresState: String {
    case uniqueViolation = "23505"
    case foreignKeyViolation = "23503"
    case notNullViolation = "23502"
    case checkViolation = "23514"
    case lockNotAvailable = "55P03"
    case readOnlyTransaction = "25006"
    case serializationFailure = "40001"
    case deadlockDetected = "40P01"
    case adminShutdown = "57P01"
    case crashShutdown = "57P02"
    case cannotConnectNow = "57P03"
    case insufficientPrivilege = "42501"
    /// A message the server did not expect in the protocol: not a lost connection (the connection
    /// stays up), and never to be retried as one.
    case protocolViolation = "08P01"

    /// Whether `state` says a prepared statement's name is unknown to the server session (26000),
    /// or taken there already (42P05).
    static func isStatementNameMismatch(_ state: String) -> Bool {
        state == "26000" || state == "42P05"
    }

    /// The kind of a failure with SQLSTATE `state`; whole classes where PostgreSQL groups them.
    static func kind(of state: String?) -> CRUDSQLExeError.Kind {
        guard let state else { return .other }
        switch PostgresState(rawValue: state) {
        case .uniqueViolation: return .uniqueViolation
        case .foreignKeyViolation: return .foreignKeyViolation
        case .notNullViolation: return .notNullViolation
        case .checkViolation: return .checkViolation
        case .lockNotAvailable: return .busyOrLocked
        case .readOnlyTransaction: return .readOnly
        case .serializationFailure, .deadlockDetected: return .serializationFailure
        case .adminShutdown, .crashShutdown, .cannotConnectNow: return .connectionLost
        case .insufficientPrivilege, .protocolViolation: return .other
        case nil: break
        }
        switch PostgresStateClass(rawValue: String(state.prefix(2))) {
        case .connectionException: return .connectionLost
        case .syntaxErrorOrAccessRuleViolation: return .syntaxOrSchema
        case nil: return .other
        }
    }
}

/// The SQLSTATE classes (first two characters) CRUD tells apart as a whole.
enum PostgresStateClass: String {
    case connectionException = "08"
    /// Syntax errors and undefined tables, columns and functions (42501, missing privileges, is
    /// told apart before).
    case syntaxErrorOrAccessRuleViolation = "42"
}
