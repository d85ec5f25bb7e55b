import CLibPQ
@_spi(CRUDDriver) import CRUD
import Foundation

/// One libpq connection with its prepared statements.
///
/// Every statement is prepared once per session under a name and run with `PQexecPrepared`,
/// parameters and results in binary. When the server goes away, the failing call throws and
/// `isUsable` turns false; the pool replaces the connection, or the executor reconnects it (and
/// re-prepares what it runs) at its next use outside a transaction.
public final class PostgresConnection: CRUDConnection {
    public typealias Statement = PostgresStatement

    static let cacheCapacity = 256

    private(set) var handle: OpaquePointer
    public let dialect: any CRUDDialect = PostgresDialect()
    private var cache = CRUDStatementCache<PostgresStatement>(capacity: cacheCapacity)
    private var nextStatement = 0
    /// What the connection points at, for messages: `database "x" at host:port`.
    public let target: String
    /// The same, for metrics and traces.
    let peer: CRUDPeer
    /// What `PQcancel` needs to cancel the server's current statement, made at each connect:
    /// guarded by `cancelLock`, since `interrupt()` reads it from another thread.
    private var cancelHandle: OpaquePointer?
    private let cancelLock = NSLock()
    /// Whether a statement was sent without blocking and its answer is not all read yet. Used by the
    /// connection's holder alone, so it skips the dynamic exclusivity check.
    @exclusivity(unchecked) private var answerPending = false

    init(parameters: [String: String], expandDatabase: Bool) throws {
        let keywords = Array(parameters.keys)
        let values = keywords.map { parameters[$0]! }
        let connection = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, expandDatabase ? 1 : 0)
            }
        }
        guard let connection else { throw CRUDSQLExeError("cannot connect to PostgreSQL: libpq could not allocate a connection") }
        let described = "PostgreSQL " + Self.describe(parameters, expandDatabase: expandDatabase)
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
            let failure = Self.connectFailure(connection)
            PQfinish(connection)
            throw CRUDSQLExeError("cannot connect to \(described): \(message)", code: failure.code, databaseMessage: message, kind: failure.kind)
        }
        handle = connection
        let database = String(cString: PQdb(connection)), host = String(cString: PQhost(connection)), port = String(cString: PQport(connection))
        target = "database \"\(database)\" at \(host):\(port)"
        peer = CRUDPeer(namespace: database, address: host, port: Int(port))
        cancelHandle = PQgetCancel(connection)
        Self.configure(connection)
    }

    /// What every session of the connection needs, at connect and after a reconnect: notices
    /// (`DROP TABLE IF EXISTS` of a missing table, say) are not errors, so they stay off stderr;
    /// and sends never block, for the async path (`PQexec…`, the synchronous calls, block as
    /// ever: libpq makes them wait whatever the mode).
    private static func configure(_ connection: OpaquePointer) {
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        PQsetnonblocking(connection, 1)
    }

    deinit {
        if let cancelHandle { PQfreeCancel(cancelHandle) }
        PQfinish(handle)
    }

    /// `PQcancel`: asks the server, over a connection of its own, to cancel what this session runs.
    @_spi(CRUDDriver) public func interrupt() {
        cancelLock.withLock {
            guard let cancelHandle else { return }
            var message = [CChar](repeating: 0, count: 256)
            _ = PQcancel(cancelHandle, &message, Int32(message.count))
        }
    }

    /// What a failed connection attempt was. libpq keeps no SQLSTATE for it, so it is told by how far
    /// the attempt got: one that never reached a login (refused, unreachable, the server starting up
    /// or shutting down) is an outage, `.connectionLost` with 08001, which retries look for; one
    /// that needed or sent a password was refused by a server that runs, and keeps `.other`.
    /// The database the parameters name, for messages: `database "app" at host:port`, or the URL
    /// with its password hidden.
    static func describe(_ parameters: [String: String], expandDatabase: Bool) -> String {
        expandDatabase ? "at \(redacted(parameters["dbname"] ?? ""))"
            : "database \"\(parameters["dbname"] ?? "(default)")\" at \(parameters["host"] ?? "(default host)"):\(parameters["port"] ?? "(default port)")"
    }

    /// Which database and server the parameters name, as far as they say without connecting.
    static func peer(_ parameters: [String: String], expandDatabase: Bool) -> CRUDPeer {
        guard expandDatabase else {
            return CRUDPeer(namespace: parameters["dbname"], address: parameters["host"], port: parameters["port"].flatMap { Int($0) })
        }
        let url = URLComponents(string: parameters["dbname"] ?? "")
        let database = url.map { String($0.path.drop { $0 == "/" }) }
        return CRUDPeer(namespace: database?.isEmpty == false ? database : nil, address: url?.host, port: url?.port)
    }

    private static func connectFailure(_ connection: OpaquePointer) -> (kind: CRUDSQLExeError.Kind, code: String?) {
        if PQconnectionNeedsPassword(connection) != 0 || PQconnectionUsedPassword(connection) != 0 { return (.other, "28000") }
        return (.connectionLost, "08001")
    }

    /// A connection URL with its password hidden.
    private static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }

    private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        pointers.append(nil)
        return body(pointers.map { $0.map { UnsafePointer($0) } })
    }

    // MARK: - Errors

    /// The error for a failed call: SQLSTATE, the server's message, the SQL, and whether the
    /// connection was lost.
    func error(_ result: OpaquePointer?, sql: String?) -> CRUDSQLExeError {
        var message = result.map { String(cString: PQresultErrorMessage($0)) } ?? ""
        if message.isEmpty { message = String(cString: PQerrorMessage(handle)) }
        message = message.trimmingCharacters(in: .whitespacesAndNewlines)
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        if PQstatus(handle) == CONNECTION_BAD {
            return CRUDSQLExeError("lost the connection to PostgreSQL \(target): \(message); the next call reconnects",
                                   sql: sql, code: state ?? "08006", databaseMessage: message, kind: .connectionLost)
        }
        let field = { (code: Character) in result.flatMap { PQresultErrorField($0, Int32(code.asciiValue!)) }.map { String(cString: $0) } }
        return CRUDSQLExeError("PostgreSQL error \(state ?? "") on \(target): \(message)", sql: sql, code: state, databaseMessage: message,
                               kind: PostgresState.kind(of: state), constraint: field("n"), table: field("t"))
    }

    /// False once the connection to the server was lost, or an answer was left unread (a wait on
    /// the event loop that failed); the pool then replaces it.
    @_spi(CRUDDriver) public var isUsable: Bool {
        PQstatus(handle) == CONNECTION_OK && !answerPending
    }

    /// Connects again after the connection was lost; prepared statements died with the old session.
    /// The executor calls it only outside a transaction: a transaction's work is gone with its
    /// session, and what its body runs next must fail rather than commit on a new session.
    @_spi(CRUDDriver) public func reconnect() throws {
        PQreset(handle)
        _ = cache.removeAll()
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
            throw CRUDSQLExeError("cannot reconnect to PostgreSQL \(target): \(message)", code: "08006", databaseMessage: message,
                                  kind: .connectionLost)
        }
        Self.configure(handle)
        answerPending = false
        // The new session has another process and key.
        let fresh = PQgetCancel(handle)
        cancelLock.withLock {
            if let cancelHandle { PQfreeCancel(cancelHandle) }
            cancelHandle = fresh
        }
    }

    /// A lost connection fails every call until the executor reconnects it.
    private func ensureConnected() throws {
        guard PQstatus(handle) == CONNECTION_BAD else { return }
        throw CRUDSQLExeError("lost the connection to PostgreSQL \(target); the next call outside a transaction reconnects",
                              code: "08006", kind: .connectionLost)
    }

    /// Runs a command whose result only tells success or failure.
    private func checked(_ result: OpaquePointer?, sql: String) throws {
        defer { PQclear(result) }
        guard let result, Self.succeeded(result) else { throw error(result, sql: sql) }
    }

    private static func succeeded(_ result: OpaquePointer) -> Bool {
        let status = PQresultStatus(result)
        return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK
    }

    // MARK: - CRUDConnection

    @_spi(CRUDDriver) public var transactionStatus: CRUDTransactionStatus {
        switch PQtransactionStatus(handle) {
        case PQTRANS_INTRANS, PQTRANS_ACTIVE: .open
        case PQTRANS_INERROR: .aborted
        default: .none
        }
    }

    @_spi(CRUDDriver) public func prepare(_ sql: String) throws -> PostgresStatement {
        try ensureConnected()
        if let cached = cache.checkOut(sql) { return cached }
        let statement = try prepareOwned(sql)
        if let evicted = cache.add(statement, for: sql).evicted { deallocate(evicted) }
        return statement
    }

    public func prepareOwned(_ sql: String) throws -> PostgresStatement {
        try ensureConnected()
        let name = nextName()
        try checked(PQprepare(handle, name, sql, 0, nil), sql: sql)
        return try statement(named: name, sql: sql, described: PQdescribePrepared(handle, name))
    }

    /// Prepares with `PQsendPrepare` and describes with `PQsendDescribePrepared`, waiting for each
    /// answer on the event loop.
    @_spi(CRUDDriver) public func prepareAwaiting(_ sql: String) async throws -> PostgresStatement {
        try ensureConnected()
        if let cached = cache.checkOut(sql) { return cached }
        let statement = try await prepareOwnedAwaiting(sql)
        if let evicted = cache.add(statement, for: sql).evicted { try? await execute(deallocation(of: evicted)) }
        return statement
    }

    @_spi(CRUDDriver) public func prepareOwnedAwaiting(_ sql: String) async throws -> PostgresStatement {
        try ensureConnected()
        let name = nextName()
        guard PQsendPrepare(handle, name, sql, 0, nil) == 1 else { throw error(nil, sql: sql) }
        try checked(try await awaitAnswer(sql: sql), sql: sql)
        guard PQsendDescribePrepared(handle, name) == 1 else { throw error(nil, sql: sql) }
        return try statement(named: name, sql: sql, described: try await awaitAnswer(sql: sql))
    }

    /// The name of the next statement the session prepares.
    private func nextName() -> String {
        nextStatement += 1
        return "crud_\(nextStatement)"
    }

    /// The statement prepared as `name`, from the server's description of it, which it frees.
    private func statement(named name: String, sql: String, described description: OpaquePointer?) throws -> PostgresStatement {
        defer { PQclear(description) }
        guard let description, PQresultStatus(description) == PGRES_COMMAND_OK else { throw error(description, sql: sql) }
        let types = (0 ..< PQnparams(description)).map { PQparamtype(description, $0) }
        return PostgresStatement(connection: self, name: name, sql: sql, parameterTypes: types)
    }

    public func discard(_ statement: PostgresStatement) {
        statement.clear()
        if PQstatus(handle) == CONNECTION_OK { deallocate(statement) }
    }

    private func deallocate(_ statement: PostgresStatement) {
        PQclear(PQexec(handle, deallocation(of: statement)))
    }

    private func deallocation(of statement: PostgresStatement) -> String {
        "DEALLOCATE \(statement.name)"
    }

    @_spi(CRUDDriver) public func release(_ statement: PostgresStatement) {
        statement.clear()
        if !cache.checkIn(statement), PQstatus(handle) == CONNECTION_OK { deallocate(statement) }
    }

    @_spi(CRUDDriver) public func execute(_ sql: String) throws {
        try ensureConnected()
        try checked(PQexec(handle, sql), sql: sql)
    }

    /// Sends through libpq's asynchronous calls and waits on `CRUDEventLoop`.
    @_spi(CRUDDriver) public var executesWithoutBlocking: Bool { true }

    @_spi(CRUDDriver) public func execute(_ statement: PostgresStatement) async throws {
        try ensureConnected()
        try await statement.executeWithoutBlocking()
    }

    @_spi(CRUDDriver) public func execute(_ sql: String) async throws {
        try ensureConnected()
        guard PQsendQuery(handle, sql) == 1 else { throw error(nil, sql: sql) }
        try checked(try await awaitAnswer(sql: sql), sql: sql)
    }

    /// The server's answer to the statement just sent (`PQsendQueryPrepared`), waited for on the
    /// event loop: sends what libpq could not yet, then reads until the answer is complete, so the
    /// connection is ready for the next statement. `nil` when libpq has no result to give.
    /// - Throws: `CRUDSQLExeError` when the connection fails; the connection is then not usable.
    func awaitAnswer(sql: String) async throws -> OpaquePointer? {
        answerPending = true
        let socket = PQsocket(handle)
        var flushed = PQflush(handle)
        while flushed == 1 {
            try await CRUDEventLoop.shared.wait(until: .writable, on: socket)
            flushed = PQflush(handle)
        }
        guard flushed == 0 else { throw error(nil, sql: sql) }
        var answer: OpaquePointer?
        while true {
            while PQisBusy(handle) == 1 {
                do {
                    try await CRUDEventLoop.shared.wait(until: .readable, on: socket)
                } catch {
                    PQclear(answer)
                    throw error
                }
                guard PQconsumeInput(handle) == 1 else {
                    PQclear(answer)
                    throw error(nil, sql: sql)
                }
            }
            guard let next = PQgetResult(handle) else { break }
            // A statement has one result; SQL of several statements has one each, and the answer is
            // the first that failed, else the first. The rest is read only to finish the answer: a
            // connection that broke there says so through its status (`isUsable`).
            if let kept = answer, Self.succeeded(kept), !Self.succeeded(next) {
                PQclear(kept)
                answer = next
            } else if answer == nil {
                answer = next
            } else {
                PQclear(next)
            }
        }
        answerPending = false
        return answer
    }

    /// `lastval()`: the last value an identity column or sequence produced in this session, or
    /// `nil` when none has. Inside a transaction it runs under a savepoint, so asking cannot abort it.
    @_spi(CRUDDriver) public func lastInsertId(using runner: some CRUDCatalogRunner<Statement>) throws -> Int? {
        try ensureConnected()
        let guarded = PQtransactionStatus(handle) != PQTRANS_IDLE
        let savepoint = "crud_lastval"
        if guarded { try runner.execute(dialect.savepoint(savepoint)) }
        do {
            var id: Int?
            try runner.forEachRow("SELECT lastval()", []) { id = Int(try $0.readInt64(0)) }
            if guarded { try runner.execute(dialect.releaseSavepoint(savepoint)) }
            return id
        } catch let error as CRUDSQLExeError where error.code == "55000" {
            // Not yet defined in this session: no identity or sequence has produced a value.
            if guarded {
                try runner.execute(dialect.rollbackToSavepoint(savepoint))
                try runner.execute(dialect.releaseSavepoint(savepoint))
            }
            return nil
        }
    }

    @_spi(CRUDDriver) public func columns(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> [CRUDDatabaseColumn]? {
        var columns: [CRUDDatabaseColumn] = []
        try runner.forEachRow("""
            SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
                   EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY (i.indkey))
            FROM pg_attribute a
            WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
            """, [.text(dialect.quote(table))]) { row in
            columns.append(CRUDDatabaseColumn(name: try row.readText(0), declaredType: try row.readText(1),
                                              isNullable: try row.readBool(2), isPrimaryKey: try row.readBool(3)))
        }
        if !columns.isEmpty { return columns }
        var exists = false
        try runner.forEachRow("SELECT to_regclass($1) IS NOT NULL", [.text(dialect.quote(table))]) { exists = try $0.readBool(0) }
        return exists ? [] : nil
    }

    @_spi(CRUDDriver) public func constraintNames(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> Set<String> {
        var names: Set<String> = []
        try runner.forEachRow("SELECT conname::text FROM pg_constraint WHERE conrelid = to_regclass($1)", [.text(dialect.quote(table))]) {
            names.insert(try $0.readText(0))
        }
        return names
    }

    /// The indexes that back no constraint (neither the primary key nor a unique constraint).
    @_spi(CRUDDriver) public func indexes(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws
        -> [(name: String, sql: String, columns: [String])] {
        var found: [(name: String, sql: String, columns: [String])] = []
        try runner.forEachRow("""
            SELECT c.relname::text, pg_get_indexdef(i.indexrelid),
                   (SELECT string_agg(a.attname::text, ',' ORDER BY k.n) FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
                    JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = k.attnum)
            FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
            WHERE i.indrelid = to_regclass($1) AND NOT EXISTS (SELECT 1 FROM pg_constraint AS k WHERE k.conindid = i.indexrelid)
            ORDER BY 1
            """, [.text(dialect.quote(table))]) { row in
            let columns = row.isNull(2) ? [] : try row.readText(2).split(separator: ",").map(String.init)
            found.append((try row.readText(0), try row.readText(1), columns))
        }
        return found
    }

    /// The unique indexes of `table` (those of its primary key and unique constraints too) with their
    /// columns: what `ON CONFLICT (…)` accepts. Partial indexes and indexes on expressions are left
    /// out.
    @_spi(CRUDDriver) public func uniqueKeys(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> [String: Set<String>] {
        var keys: [String: Set<String>] = [:]
        try runner.forEachRow("""
            SELECT i.indexrelid::regclass::text, a.attname::text FROM pg_index AS i
            JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
            WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL
            """, [.text(dialect.quote(table))]) { row in
            keys[try row.readText(0), default: []].insert(try row.readText(1))
        }
        return keys
    }
}
