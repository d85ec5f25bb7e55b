import CLibPQ
@_spi(CRUDDriver) import CRUD
import Foundation

/// A session's connection to PostgreSQL with its prepared statements: a libpq connection of its
/// own, or one it shares with other sessions (`PostgresServerConnection`).
///
/// Every statement is prepared once per session under a name (on each shared server connection it
/// runs on, when shared) and run with `PQexecPrepared`, parameters and results in binary. When the server goes away, the failing call throws and
/// `isUsable` turns false; the pool replaces the connection, or the executor reconnects it (and
/// re-prepares what it runs) at its next use outside a transaction.
public final class PostgresConnection: CRUDConnection {
    public typealias Statement = PostgresStatement

    static let cacheCapacity = 256

    /// The session's own server connection; `nil` when it shares them (`group`).
    private let own: PostgresServerConnection?
    /// The server connections the session shares with others, when it does.
    private let group: PostgresServerConnections?
    /// The shared server connection the session holds, while it does: for a call, or a
    /// transaction from its `BEGIN` to its end.
    @exclusivity(unchecked) private var held: PostgresServerConnection?
    /// The shared server connection the session last held: where its `lastval()` is.
    @exclusivity(unchecked) private var lastHeld: PostgresServerConnection?
    /// How deep the session's calls that hold a shared server connection are nested.
    @exclusivity(unchecked) private var holds = 0
    /// The libpq connection: the session's own, or the shared one it holds. Used only then.
    var handle: OpaquePointer { own?.handle ?? held!.handle }
    public let dialect: any CRUDDialect
    /// Whether the server is reached through a pooler in transaction mode: statements are unnamed,
    /// and nothing relies on the server session outside a transaction.
    private let transactionPooling: Bool
    private var cache = CRUDStatementCache<PostgresStatement>(capacity: cacheCapacity)
    /// The names of the statements the session prepares: its own, also where it shares server
    /// connections with other sessions.
    private var statementNames = PostgresStatementNames()
    /// What the connection points at, for messages: `database "x" at host:port`.
    public let target: String
    /// Whether the connection reads from a standby (`readsFromStandbys`): replaced once it finds
    /// itself on a primary (`wantsReplacing`).
    private let prefersStandby: Bool
    /// When it connected: a connection to the primary in a standby's place is kept this long.
    private let openedAt = ContinuousClock.now
    /// How long a connection for standby reads that found no standby (or whose standby was
    /// promoted) keeps reading from the primary before it is replaced by one that looks again.
    static let standbyRecheck = Duration.seconds(2)
    /// The same, for metrics and traces.
    let peer: CRUDPeer

    /// A session with a server connection of its own.
    /// - Throws: `CRUDSQLExeError` naming the server and saying what failed.
    /// `transactionPooling` when a pooler in transaction mode stands between it and the server.
    /// `prefersStandby` for a connection that reads from a standby (`readsFromStandbys`).
    init(parameters: [String: String], expandDatabase: Bool, transactionPooling: Bool = false, prefersStandby: Bool = false) throws {
        let own = try PostgresServerConnection(parameters: parameters, expandDatabase: expandDatabase)
        self.own = own
        self.prefersStandby = prefersStandby
        group = nil
        self.transactionPooling = transactionPooling
        dialect = PostgresDialect(transactionPooling: transactionPooling)
        (target, peer) = Self.describe(own.handle)
    }

    /// A session sharing the server connections of `group`.
    /// - Throws: `CRUDSQLExeError` naming the server and saying what failed.
    init(sharing group: PostgresServerConnections) throws {
        try group.join()
        own = nil
        self.group = group
        prefersStandby = false
        transactionPooling = false
        dialect = PostgresDialect()
        (target, peer) = group.describe()
    }

    deinit {
        group?.leave()
    }

    /// What `connection` points at, for messages and for metrics.
    static func describe(_ connection: OpaquePointer) -> (target: String, peer: CRUDPeer) {
        let database = String(cString: PQdb(connection)), host = String(cString: PQhost(connection)), port = String(cString: PQport(connection))
        return ("database \"\(database)\" at \(host):\(port)", CRUDPeer(namespace: database, address: host, port: Int(port)))
    }

    /// `PQcancel`: asks the server, over a connection of its own, to cancel what this session runs.
    @_spi(CRUDDriver) public func interrupt() {
        if let own { own.cancel() } else { group?.interrupt(ObjectIdentifier(self)) }
    }

    // MARK: - Holding a shared server connection

    /// Runs `body` holding a shared server connection, when the session shares them: it blocks the
    /// thread until one is free. `only`: that one (where the session's `lastval()` is).
    /// - Throws: what `body` throws; `CRUDSQLExeError` when a lost server connection cannot reconnect.
    @inline(__always)
    func holding<T>(only: PostgresServerConnection? = nil, _ body: () throws -> T) throws -> T {
        guard let group else { return try body() }
        if held == nil { held = try group.acquire(for: ObjectIdentifier(self), only: only) }
        holds += 1
        defer { letGo() }
        try reconnectHeld()
        return try body()
    }

    /// Whether the session shares server connections with others, holding one for its calls.
    var sharesServerConnections: Bool { group != nil }

    /// `holding(_:)` suspending the task rather than blocking its thread. Inlined, like the other
    /// steps of an awaited statement: each async call not inlined allocates a frame in the task.
    @inline(__always)
    nonisolated(nonsending) func holding<T>(_ body: nonisolated(nonsending) () async throws -> T) async throws -> T {
        guard let group else { return try await body() }
        if held == nil { held = try await group.acquire(for: ObjectIdentifier(self)) }
        holds += 1
        defer { letGo() }
        if let held, !held.isWorking || held.needsReconnect { try await held.reconnectAwaiting(target: target) }
        return try await body()
    }

    /// The held server connection, lost or left half read, connects again.
    private func reconnectHeld() throws {
        guard let held, !held.isWorking || held.needsReconnect else { return }
        try held.reconnect(target: target)
    }

    private func letGo() {
        holds -= 1
        guard holds == 0, let server = held else { return }
        lastHeld = server
        if group?.release(server, by: ObjectIdentifier(self)) == true { held = nil }
    }

    /// A session sharing server connections holds one throughout `body`.
    @_spi(CRUDDriver) public func keepingServerSession<T>(_ body: () throws -> T) throws -> T {
        try holding(body)
    }

    /// Runs `statement`, a read outside a transaction, in a shared server connection's pipeline;
    /// `nil` when the session has a server connection of its own or holds one.
    @inline(__always)
    nonisolated(nonsending) func pipelined(_ statement: PostgresStatement) async throws -> PostgresAnswer? {
        guard let group, held == nil else { return nil }
        return try await group.read(statement, for: ObjectIdentifier(self))
    }

    /// Prepares `statement` on the held server connection, where it is not yet.
    /// - Throws: `CRUDSQLExeError` when the server refuses it.
    func ensurePrepared(_ statement: PostgresStatement) throws {
        guard let held, !statement.isPrepared(on: held) else { return }
        try checked(PQprepare(handle, statement.name, statement.sql, 0, nil), sql: statement.sql)
        statement.markPrepared(on: held)
    }

    /// `ensurePrepared(_:)` waiting for the server on the event loop.
    /// - Throws: `CRUDSQLExeError` when the server refuses it.
    @inline(__always)
    nonisolated(nonsending) func ensurePreparedAwaiting(_ statement: PostgresStatement) async throws {
        guard let held, !statement.isPrepared(on: held) else { return }
        try await prepareAwaiting(statement, on: held)
    }

    private nonisolated(nonsending) func prepareAwaiting(_ statement: PostgresStatement, on held: PostgresServerConnection) async throws {
        guard PQsendPrepare(handle, statement.name, statement.sql, 0, nil) == 1 else { throw error(nil, sql: statement.sql) }
        try checked(try await awaitAnswer(sql: statement.sql), sql: statement.sql)
        statement.markPrepared(on: held)
    }

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

    /// A connection URL with its password hidden.
    private static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }

    // MARK: - Errors

    /// The error for a failed call: SQLSTATE, the server's message, the SQL, and whether the
    /// connection was lost.
    func error(_ result: OpaquePointer?, sql: String?) -> CRUDSQLExeError {
        var message = result.map { String(cString: PQresultErrorMessage($0)) } ?? ""
        // A pipelined read's error is all in its result; the connection is the holder's otherwise.
        let server = own ?? held
        if message.isEmpty, let server { message = String(cString: PQerrorMessage(server.handle)) }
        let lost = server.map { !$0.isWorking } ?? false
        message = message.trimmingCharacters(in: .whitespacesAndNewlines)
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        if lost {
            return CRUDSQLExeError("lost the connection to PostgreSQL \(target): \(message); the next call reconnects",
                                   sql: sql, code: state ?? "08006", databaseMessage: message, kind: .connectionLost)
        }
        if let state, PostgresState.isStatementNameMismatch(state), statementNames.named(in: message) {
            return CRUDSQLExeError(
                "PostgreSQL \(target) does not have the statement this connection prepared under that name, or has another under it "
                    + "(\(message)): the server session changed under the connection, as it does behind a connection pooler in "
                    + "transaction mode (pgbouncer's pool_mode = transaction). Set transactionPooling: true in the configuration "
                    + "(crud_transaction_pooling=1 in a URL), or put the pooler in session mode; the statement did not run",
                sql: sql, code: state, databaseMessage: message, kind: .misconfigured)
        }
        let field = { (code: Character) in result.flatMap { PQresultErrorField($0, Int32(code.asciiValue!)) }.map { String(cString: $0) } }
        return CRUDSQLExeError("PostgreSQL error \(state ?? "") on \(target): \(message)", sql: sql, code: state, databaseMessage: message,
                               kind: PostgresState.kind(of: state), constraint: field("n"), table: field("t"))
    }

    /// False once the connection to the server was lost, or an answer was left unread (a wait on
    /// the event loop that failed); the pool then replaces it. A session sharing server connections
    /// stays usable: the next one it holds reconnects, where lost.
    @_spi(CRUDDriver) public var isUsable: Bool {
        guard let own else { return true }
        return own.isWorking && !own.needsReconnect
    }

    /// A connection for standby reads whose server is not a standby (none answered when it
    /// connected, or its standby was promoted since; PostgreSQL 14 and later report it), once it is
    /// `standbyRecheck` old: the pool replaces it, and the new one looks for a standby again.
    @_spi(CRUDDriver) public var wantsReplacing: Bool {
        guard prefersStandby, let own, ContinuousClock.now - openedAt >= Self.standbyRecheck,
              let standby = PQparameterStatus(own.handle, "in_hot_standby") else { return false }
        return strcmp(standby, "off") == 0
    }

    /// Connects again after the connection was lost; prepared statements died with the old session.
    /// The executor calls it only outside a transaction: a transaction's work is gone with its
    /// session, and what its body runs next must fail rather than commit on a new session.
    @_spi(CRUDDriver) public func reconnect() throws {
        guard let own else { return }
        _ = cache.removeAll()
        try own.reconnect(target: target)
    }

    /// `reconnect()` waiting for the server on the event loop, for an async call in its own task.
    @_spi(CRUDDriver) public nonisolated(nonsending) func reconnectAwaiting() async throws {
        guard let own else { return }
        _ = cache.removeAll()
        try await own.reconnectAwaiting(target: target)
    }

    /// A lost connection fails every call until the executor reconnects it.
    private func ensureConnected() throws {
        guard let own, !own.isWorking else { return }
        throw CRUDSQLExeError("lost the connection to PostgreSQL \(target); the next call outside a transaction reconnects",
                              code: "08006", kind: .connectionLost)
    }

    /// Runs a command whose result only tells success or failure.
    private func checked(_ result: OpaquePointer?, sql: String) throws {
        defer { PQclear(result) }
        guard let result, Self.succeeded(result) else { throw error(result, sql: sql) }
    }

    /// Whether `result` says its statement succeeded (with rows or without).
    static func succeeded(_ result: OpaquePointer) -> Bool {
        let status = PQresultStatus(result)
        return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK
    }

    // MARK: - CRUDConnection

    /// A session that does not hold a shared server connection has no transaction open: one
    /// keeps the server connection from its `BEGIN` to its end.
    @_spi(CRUDDriver) public var transactionStatus: CRUDTransactionStatus {
        if group != nil, held == nil { return .none }
        return switch PQtransactionStatus(handle) {
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
        if let described = describedBefore(sql) { return described }
        if transactionPooling { return try statement(named: "", sql: sql, described: describeUnnamed(sql)) }
        return try holding {
            let name = statementNames.next()
            try checked(PQprepare(handle, name, sql, 0, nil), sql: sql)
            return try statement(named: name, sql: sql, described: PQdescribePrepared(handle, name))
        }
    }

    /// Prepares with `PQsendPrepare` and describes with `PQsendDescribePrepared`, waiting for each
    /// answer on the event loop.
    @_spi(CRUDDriver) public nonisolated(nonsending) func prepareAwaiting(_ sql: String) async throws -> PostgresStatement {
        try ensureConnected()
        if let cached = cache.checkOut(sql) { return cached }
        let statement = try await prepareOwnedAwaiting(sql)
        if let evicted = cache.add(statement, for: sql).evicted, own != nil, !evicted.isUnnamed { try? await execute(deallocation(of: evicted)) }
        return statement
    }

    @_spi(CRUDDriver) public nonisolated(nonsending) func prepareOwnedAwaiting(_ sql: String) async throws -> PostgresStatement {
        try ensureConnected()
        if let described = describedBefore(sql) { return described }
        if transactionPooling { return try statement(named: "", sql: sql, described: try await describeUnnamedAwaiting(sql)) }
        return try await holding {
            let name = statementNames.next()
            guard PQsendPrepare(handle, name, sql, 0, nil) == 1 else { throw error(nil, sql: sql) }
            try checked(try await awaitAnswer(sql: sql), sql: sql)
            guard PQsendDescribePrepared(handle, name) == 1 else { throw error(nil, sql: sql) }
            return try statement(named: name, sql: sql, described: try await awaitAnswer(sql: sql))
        }
    }

    /// Parse and Describe of `sql` as the unnamed statement, behind one Sync (libpq's pipeline
    /// mode): a pooler in transaction mode runs both on one server connection, where a Sync each
    /// could send the Describe to another. The description, or the first error.
    private func describeUnnamed(_ sql: String) throws -> OpaquePointer? {
        try sendDescription(of: sql)
        var answers = PostgresPipelineAnswers()
        while answers.take(PQgetResult(handle)) {}
        return answers.finish(on: handle)
    }

    /// `describeUnnamed(_:)` waiting for the server on the event loop.
    private nonisolated(nonsending) func describeUnnamedAwaiting(_ sql: String) async throws -> OpaquePointer? {
        try sendDescription(of: sql)
        var answers = PostgresPipelineAnswers()
        do {
            try await flushAwaiting(sql: sql)
            while answers.take(try await nextResultAwaiting(sql: sql)) {}
        } catch {
            // Half read: the connection cannot be used before it is replaced.
            own?.setBroken(true)
            PQclear(answers.finish(on: handle))
            throw error
        }
        return answers.finish(on: handle)
    }

    private func sendDescription(of sql: String) throws {
        guard PQenterPipelineMode(handle) == 1, PQsendPrepare(handle, "", sql, 0, nil) == 1, PQsendDescribePrepared(handle, "") == 1,
              PQpipelineSync(handle) == 1 else {
            if PQpipelineStatus(handle) != PQ_PIPELINE_OFF { PQexitPipelineMode(handle) }
            throw error(nil, sql: sql)
        }
    }

    /// The statement prepared as `name`, from the server's description of it, which it frees.
    private func statement(named name: String, sql: String, described description: OpaquePointer?) throws -> PostgresStatement {
        defer { PQclear(description) }
        guard let description, PQresultStatus(description) == PGRES_COMMAND_OK else { throw error(description, sql: sql) }
        let types = (0 ..< PQnparams(description)).map { PQparamtype(description, $0) }
        let statement = PostgresStatement(connection: self, name: name, sql: sql, parameterTypes: types, sharing: group)
        if let held { statement.markPrepared(on: held) }
        group?.described(sql, parameterTypes: types)
        return statement
    }

    /// A statement for `sql` that shared server connections described before: prepared where it
    /// first runs, with no round trip now.
    private func describedBefore(_ sql: String) -> PostgresStatement? {
        guard let group, let types = group.parameterTypes(of: sql) else { return nil }
        return PostgresStatement(connection: self, name: statementNames.next(), sql: sql, parameterTypes: types, sharing: group)
    }

    public func discard(_ statement: PostgresStatement) {
        statement.clear()
        deallocate(statement)
    }

    /// Frees what the server keeps for `statement`. Shared server connections free it when the
    /// statement goes, through their pipelines, where holding one would block the thread.
    private func deallocate(_ statement: PostgresStatement) {
        guard let own, own.isWorking, !statement.isUnnamed else { return }
        PQclear(PQexec(handle, deallocation(of: statement)))
    }

    private func deallocation(of statement: PostgresStatement) -> String {
        "DEALLOCATE \(statement.name)"
    }

    @_spi(CRUDDriver) public func release(_ statement: PostgresStatement) {
        statement.clear()
        if !cache.checkIn(statement) { deallocate(statement) }
    }

    @_spi(CRUDDriver) public func execute(_ sql: String) throws {
        try ensureConnected()
        try holding { try checked(PQexec(handle, sql), sql: sql) }
    }

    /// Sends through libpq's asynchronous calls and waits on `CRUDEventLoop`.
    @_spi(CRUDDriver) public var executesWithoutBlocking: Bool { true }

    /// A read outside a transaction goes through a shared server connection's pipeline.
    @_spi(CRUDDriver) public nonisolated(nonsending) func execute(_ statement: PostgresStatement, reading: Bool) async throws {
        try ensureConnected()
        try await statement.executeWithoutBlocking(reading: reading)
    }

    @_spi(CRUDDriver) public nonisolated(nonsending) func execute(_ sql: String) async throws {
        try ensureConnected()
        try await holding {
            guard PQsendQuery(handle, sql) == 1 else { throw error(nil, sql: sql) }
            try checked(try await awaitAnswer(sql: sql), sql: sql)
        }
    }

    /// The server's answer to the statement just sent (`PQsendQueryPrepared`), waited for on the
    /// event loop: sends what libpq could not yet, then reads until the answer is complete, so the
    /// connection is ready for the next statement. `nil` when libpq has no result to give.
    /// - Throws: `CRUDSQLExeError` when the connection fails; the connection is then not usable.
    @inline(__always)
    nonisolated(nonsending) func awaitAnswer(sql: String) async throws -> OpaquePointer? {
        // Broken until the answer is all read: a wait that fails leaves it half read.
        let server = own ?? held!
        server.setBroken(true)
        try await flushAwaiting(sql: sql)
        var answer: OpaquePointer?
        while true {
            let result: OpaquePointer?
            do {
                result = try await nextResultAwaiting(sql: sql)
            } catch {
                PQclear(answer)
                throw error
            }
            guard let next = result else { break }
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
        server.setBroken(false)
        return answer
    }

    /// Sends what libpq holds, waiting on the event loop while the socket takes no more (rarely:
    /// a statement's message fits the socket's buffer).
    @inline(__always)
    private nonisolated(nonsending) func flushAwaiting(sql: String) async throws {
        let flushed = PQflush(handle)
        if flushed != 0 { try await flushWaiting(flushed, sql: sql) }
    }

    private nonisolated(nonsending) func flushWaiting(_ flushed: Int32, sql: String) async throws {
        var flushed = flushed
        while flushed == 1 {
            try await CRUDEventLoop.shared.wait(until: .writable, on: PQsocket(handle))
            flushed = PQflush(handle)
        }
        guard flushed == 0 else { throw error(nil, sql: sql) }
    }

    /// `PQgetResult` once libpq holds the next result whole, waiting on the event loop for it (not
    /// for the end of an answer read whole already).
    @inline(__always)
    private nonisolated(nonsending) func nextResultAwaiting(sql: String) async throws -> OpaquePointer? {
        if PQisBusy(handle) == 0 { return PQgetResult(handle) }
        return try await nextResultWaiting(sql: sql)
    }

    private nonisolated(nonsending) func nextResultWaiting(sql: String) async throws -> OpaquePointer? {
        while PQisBusy(handle) == 1 {
            try await CRUDEventLoop.shared.wait(until: .readable, on: PQsocket(handle))
            guard PQconsumeInput(handle) == 1 else { throw error(nil, sql: sql) }
        }
        return PQgetResult(handle)
    }

    /// `lastval()`: the last value an identity column or sequence produced in this session, or
    /// `nil` when none has. Inside a transaction it runs under a savepoint, so asking cannot abort it.
    /// On a shared server connection that another session held since, `lastval()` may be that
    /// session's: it throws then.
    @_spi(CRUDDriver) public func lastInsertId(using runner: some CRUDCatalogRunner<Statement>) throws -> Int? {
        try ensureConnected()
        return try holding(only: lastHeld) { try lastValue(using: runner) }
    }

    private func lastValue(using runner: some CRUDCatalogRunner<Statement>) throws -> Int? {
        if transactionPooling, PQtransactionStatus(handle) == PQTRANS_IDLE {
            throw CRUDSQLExeError("lastInsertId(): behind a transaction pooler the insert's server connection went back to the pool "
                + "when its transaction ended, so lastval() would be another session's; call lastInsertId() in the transaction "
                + "that inserts, or use returning(…) to get the row's values")
        }
        if let group, let held, !group.wasHeldBefore(held, by: ObjectIdentifier(self)) {
            throw CRUDSQLExeError("lastInsertId(): another session used the shared server connection since the insert, so its last id "
                + "may be another's; use returning(…) to get the row's values")
        }
        let guarded = PQtransactionStatus(handle) != PQTRANS_IDLE
        if !guarded, try isProxied(using: runner) {
            throw CRUDSQLExeError("lastInsertId(): a connection pooler stands between this connection and PostgreSQL \(target) (the "
                + "server session is not the one it logged into), so outside a transaction lastval() may be asked on another server "
                + "connection than the insert ran on; call lastInsertId() in the transaction that inserts, or use returning(…) to "
                + "get the row's values (and behind a pooler in transaction mode, set transactionPooling: true)")
        }
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

    /// Whether the server session is not the one libpq logged into: pgbouncer answers a login with
    /// a process id of its own, which no server session has. Asked once a server session.
    private func isProxied(using runner: some CRUDCatalogRunner<Statement>) throws -> Bool {
        guard let server = own ?? held else { return false }
        if let known = server.proxied, known.generation == server.generation { return known.value }
        var pid: Int64 = 0
        try runner.forEachRow("SELECT pg_backend_pid()::bigint", []) { pid = try $0.readInt64(0) }
        let proxied = pid != Int64(PQbackendPID(handle))
        server.proxied = (server.generation, proxied)
        return proxied
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
}
