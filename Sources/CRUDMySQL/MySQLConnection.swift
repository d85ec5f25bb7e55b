#if MySQL
import CMariaDB
@_spi(CRUDDriver) import CRUD
import Foundation

/// One Connector/C connection with its prepared statements.
///
/// The session keeps the server's `sql_mode`, so raw SQL quotes and escapes as on any MySQL client
/// (names in backticks, `"…"` a string unless the server sets `ANSI_QUOTES`), and adds to it:
/// `STRICT_ALL_TABLES` (a value that does not fit is an error, not a warning),
/// `NO_AUTO_VALUE_ON_ZERO` (an id 0 is stored as 0) and `NO_ENGINE_SUBSTITUTION`. The time zone is
/// UTC and the character set utf8mb4 with a binary collation that does not pad. Affected-row counts
/// are rows matched, as elsewhere.
public final class MySQLConnection: CRUDConnection {
    public typealias Statement = MySQLStatement

    static let cacheCapacity = 256

    private(set) var handle: UnsafeMutablePointer<MYSQL>
    /// The server's dialect, known once connected.
    public private(set) var dialect: any CRUDDialect = MySQLDialect()
    private var cache = CRUDStatementCache<MySQLStatement>(capacity: cacheCapacity)
    private let options: MySQLConnectOptions
    private var lost = false
    /// The last insert a statement of this connection made: the id Connector/C reported (0 for
    /// none; `nil` for a statement with a result, `INSERT … RETURNING`, for which it reports none),
    /// how many rows it wrote.
    private var lastInsert: (id: UInt64?, rows: Int) = (0, 0)
    /// What the connection points at, for messages: `database "x" at host:port`.
    public let target: String
    /// The largest packet the server takes (`max_allowed_packet`), read at each connect: a
    /// session's value never changes.
    private(set) var maxAllowedPacket = Int.max

    static let sessionSetup = [
        "SET SESSION sql_mode = TRIM(BOTH ',' FROM CONCAT(@@SESSION.sql_mode, ',STRICT_ALL_TABLES,NO_AUTO_VALUE_ON_ZERO,NO_ENGINE_SUBSTITUTION'))",
        "SET SESSION time_zone = '+00:00'",
        "SET NAMES utf8mb4 COLLATE utf8mb4_nopad_bin",
    ]

    static let maxAllowedPacketQuery = "SELECT @@max_allowed_packet"
    /// What connecting ran, for the session's query log.
    private var openingStatements: [String] = []
    /// The server's id of this connection, for `KILL QUERY`: guarded by `threadLock`, since
    /// `interrupt()` reads it from another thread; 0 before the first connect.
    private var threadID: UInt = 0
    /// The server the connection reached, where `KILL QUERY` must go: guarded by `threadLock`.
    private var connectedServer: MySQLHost?
    private let threadLock = NSLock()

    /// The dialect every connect sets, whatever the server; `nil` to take the server's own.
    private let fixedDialect: MySQLDialect?

    /// Connects with `options`. `dialect`, when given, is the connection's whatever server answers:
    /// the one a configuration chose before any server did (`connectsOnFirstUse`).
    init(options: MySQLConnectOptions, dialect: MySQLDialect? = nil) throws {
        self.options = options
        fixedDialect = dialect
        target = options.description
        guard let handle = mysql_init(nil) else { throw CRUDSQLExeError("cannot connect to MySQL \(options): out of memory") }
        self.handle = handle
        // Should it throw, deinit closes the handle.
        try connect()
    }

    deinit {
        _ = cache.removeAll()
        mysql_close(handle)
    }

    /// Connects to the first of the options' servers that answers and takes the session's setup;
    /// one that is down, or answers that it is not ready (a Galera node outside the primary
    /// component), is passed over.
    private func connect() throws {
        var outage: CRUDSQLExeError?
        for (position, server) in options.servers.enumerated() {
            if position > 0 { try replaceHandle() }
            do {
                return try connect(to: server)
            } catch let error as CRUDSQLExeError where error.kind == .connectionLost {
                outage = error
            }
        }
        throw outage!
    }

    /// `connect()` waiting for each server on the event loop: Connector/C's non-blocking connect
    /// (`mysql_real_connect_start`/`_cont`), then the session's setup the same way.
    private nonisolated(nonsending) func connectAwaiting() async throws {
        var outage: CRUDSQLExeError?
        for (position, server) in options.servers.enumerated() {
            if position > 0 { try replaceHandle() }
            do {
                return try await connectAwaiting(to: server)
            } catch let error as CRUDSQLExeError where error.kind == .connectionLost {
                outage = error
            }
        }
        throw outage!
    }

    /// A new handle in place of the current one, which closes.
    private func replaceHandle() throws {
        mysql_close(handle)
        guard let fresh = mysql_init(nil) else { throw CRUDSQLExeError("cannot connect to MySQL \(options): out of memory") }
        handle = fresh
    }

    /// What every connection asks of Connector/C: utf8mb4, rows matched, several statements a query.
    private static let connectFlags = UInt(CLIENT_FOUND_ROWS) | UInt(CLIENT_MULTI_STATEMENTS)

    private func connect(to server: MySQLHost) throws {
        setConnectOptions()
        guard options.connect(handle, to: server, flags: Self.connectFlags) else { throw connectFailure() }
        connected(to: server)
        for setting in Self.sessionSetup {
            openingStatements.append(setting)
            try execute(setting)
        }
        openingStatements.append(Self.maxAllowedPacketQuery)
        maxAllowedPacket = try integer(Self.maxAllowedPacketQuery)
        readDialect()
    }

    private nonisolated(nonsending) func connectAwaiting(to server: MySQLHost) async throws {
        setConnectOptions()
        options.setConnectTimeout(handle)
        // Connector/C reads these until the connect ends, in `_cont` calls after the server's greeting
        // came: copies that outlive the calls, where Swift's own C strings would end with `_start`.
        let strings: [UnsafeMutablePointer<CChar>?] = [server.host, options.username, options.password, options.database, options.socket]
            .map { $0.flatMap { strdup($0) } }
        defer { strings.forEach { free($0) } }
        var reached: UnsafeMutablePointer<MYSQL>?
        var status = mysql_real_connect_start(&reached, handle, strings[0], strings[1], strings[2], strings[3],
                                              UInt32(server.port ?? 0), strings[4], Self.connectFlags)
        while status != 0 { status = mysql_real_connect_cont(&reached, handle, try await awaitSocket(status, connecting: true)) }
        guard reached != nil else { throw connectFailure() }
        connected(to: server)
        for setting in Self.sessionSetup {
            openingStatements.append(setting)
            try await execute(setting)
        }
        openingStatements.append(Self.maxAllowedPacketQuery)
        maxAllowedPacket = try await integerAwaiting(Self.maxAllowedPacketQuery)
        readDialect()
    }

    private func setConnectOptions() {
        _ = mysql_options(handle, MYSQL_SET_CHARSET_NAME, "utf8mb4")
        // Makes the non-blocking calls (`…_start`, `…_cont`) available; the blocking ones block as ever.
        _ = mysql_options(handle, MYSQL_OPT_NONBLOCK, nil)
    }

    /// Why a connect failed: a server that is down, restarting or unreachable is an outage
    /// (`.connectionLost`, which retries look for); a refused login or a missing database keeps its
    /// own kind.
    private func connectFailure() -> CRUDSQLExeError {
        let number = mysql_errno(handle)
        let message = String(cString: mysql_error(handle))
        return CRUDSQLExeError("cannot connect to MySQL \(options): \(message) (error \(number))",
                               code: String(number), databaseMessage: message, kind: MySQLFailure(number: number, message: message, sql: nil).kind)
    }

    /// The handle reached `server`: where `KILL QUERY` goes from now on.
    private func connected(to server: MySQLHost) {
        lost = false
        let id = mysql_thread_id(handle)
        threadLock.withLock {
            threadID = UInt(id)
            connectedServer = server
        }
        // What a failed attempt ran is not this connection's setup.
        openingStatements = []
    }

    private func readDialect() {
        dialect = fixedDialect ?? MySQLDialect(isMariaDB: String(cString: mysql_get_server_info(handle)).contains("MariaDB"),
                                               version: Int(mysql_get_server_version(handle)))
    }

    /// `KILL QUERY` of this connection's statement, sent over a connection of its own (Connector/C
    /// cannot cancel from another thread over the same one). Best effort: a failure to connect
    /// leaves the statement running to its end.
    @_spi(CRUDDriver) public func interrupt() {
        threadLock.withLock {
            guard threadID != 0, let server = connectedServer, let killer = mysql_init(nil) else { return }
            defer { mysql_close(killer) }
            guard options.connect(killer, to: server) else { return }
            _ = mysql_query(killer, "KILL QUERY \(threadID)")
        }
    }

    // MARK: - Errors

    /// The error of a failed statement call: error number, SQLSTATE, message, the SQL.
    func error(statement: UnsafeMutablePointer<MYSQL_STMT>, sql: String?) -> CRUDSQLExeError {
        error(number: mysql_stmt_errno(statement), state: String(cString: mysql_stmt_sqlstate(statement)),
              message: String(cString: mysql_stmt_error(statement)), sql: sql)
    }

    /// The error of a failed connection call.
    func connectionError(sql: String?) -> CRUDSQLExeError {
        error(number: mysql_errno(handle), state: String(cString: mysql_sqlstate(handle)), message: String(cString: mysql_error(handle)), sql: sql)
    }

    /// A statement whose values the server would not take in one packet: refused before it is sent,
    /// so the connection stays usable.
    func packetTooLarge(bytes: Int, sql: String) -> CRUDSQLExeError {
        CRUDSQLExeError("MySQL \(target): the statement (with its values) takes about \(bytes) bytes, more than the server's max_allowed_packet "
            + "of \(maxAllowedPacket) bytes, so it was not sent; store smaller values or raise max_allowed_packet on the server "
            + "(SET GLOBAL max_allowed_packet = …, for connections made afterwards)", sql: sql, code: String(ER_NET_PACKET_TOO_LARGE))
    }

    private func error(number: UInt32, state: String, message: String, sql: String?) -> CRUDSQLExeError {
        if number == UInt32(ER_NET_PACKET_TOO_LARGE) || number == UInt32(CR_NET_PACKET_TOO_LARGE) {
            // The server closes the connection after it: the next call must reconnect, not fail too.
            lost = true
            return CRUDSQLExeError("MySQL \(target): a packet was larger than max_allowed_packet (\(maxAllowedPacket) bytes on the server): "
                + "\(message) (error \(number)); store smaller values or raise max_allowed_packet; the next call reconnects",
                sql: sql, code: String(number), databaseMessage: message)
        }
        let failure = MySQLFailure(number: number, message: message, sql: sql)
        if failure.kind == .connectionLost {
            lost = true
            return CRUDSQLExeError("lost the connection to MySQL \(target): \(message) (error \(number)); the next call reconnects",
                                   sql: sql, code: String(number), databaseMessage: message, kind: .connectionLost)
        }
        // CRUD keeps the server's sql_mode, where double quotes make a string: the likeliest cause of
        // a syntax error in SQL written for the other backends.
        let hint = number == UInt32(ER_PARSE_ERROR) && sql?.contains("\"") == true
            ? "; MySQL reads \"…\" as a string unless the server's sql_mode has ANSI_QUOTES: quote names in backticks, "
                + "or with db.quote(_:) for SQL that runs on every backend"
            : ""
        return CRUDSQLExeError("MySQL error \(number) (SQLSTATE \(state)) on \(target): \(message)\(hint)", sql: sql, code: String(number),
                               databaseMessage: message, kind: failure.kind, constraint: failure.constraint, table: failure.table)
    }

    // MARK: - CRUDConnection

    @_spi(CRUDDriver) public var isUsable: Bool { !lost }

    /// `mysql_ping`: one round trip.
    @_spi(CRUDDriver) public func probe() {
        if !lost, mysql_ping(handle) != 0 { lost = true }
    }

    /// `probe()` waiting for the answer on the event loop.
    @_spi(CRUDDriver) public nonisolated(nonsending) func probeAwaiting() async {
        guard !lost else { return }
        var failed: Int32 = 0
        do {
            var status = mysql_ping_start(&failed, handle)
            while status != 0 { status = mysql_ping_cont(&failed, handle, try await awaitSocket(status)) }
            if failed != 0 { lost = true }
        } catch {
            lost = true
        }
    }

    @_spi(CRUDDriver) public func takeOpeningStatements() -> [String] {
        defer { openingStatements = [] }
        return openingStatements
    }

    /// Connects again after the connection was lost; prepared statements died with the old session.
    @_spi(CRUDDriver) public func reconnect() throws {
        _ = cache.removeAll()
        try replaceHandle()
        try connect()
    }

    /// `reconnect()` waiting for the servers on the event loop, for an async call in its own task.
    @_spi(CRUDDriver) public nonisolated(nonsending) func reconnectAwaiting() async throws {
        _ = cache.removeAll()
        try replaceHandle()
        try await connectAwaiting()
    }

    @_spi(CRUDDriver) public var transactionStatus: CRUDTransactionStatus {
        if lost { return .none }
        return handle.pointee.server_status & UInt32(SERVER_STATUS_IN_TRANS) != 0 ? .open : .none
    }

    @_spi(CRUDDriver) public func prepare(_ sql: String) throws -> MySQLStatement {
        try ensureConnected()
        if let cached = cache.checkOut(sql) { return cached }
        let statement = try MySQLStatement(connection: self, sql: sql)
        _ = cache.add(statement, for: sql)
        return statement
    }

    public func prepareOwned(_ sql: String) throws -> MySQLStatement {
        try ensureConnected()
        return try MySQLStatement(connection: self, sql: sql)
    }

    /// Prepares a statement the cache lacks without blocking, waiting on the event loop.
    @_spi(CRUDDriver) public nonisolated(nonsending) func prepareAwaiting(_ sql: String) async throws -> MySQLStatement {
        try ensureConnected()
        if let cached = cache.checkOut(sql) { return cached }
        let statement = try await MySQLStatement.preparing(sql, on: self)
        _ = cache.add(statement, for: sql)
        return statement
    }

    @_spi(CRUDDriver) public nonisolated(nonsending) func prepareOwnedAwaiting(_ sql: String) async throws -> MySQLStatement {
        try ensureConnected()
        return try await MySQLStatement.preparing(sql, on: self)
    }

    /// The statement is closed when the last reference to it goes.
    public func discard(_ statement: MySQLStatement) {
        statement.clear()
    }

    /// Called by a statement that ran an insert: the id Connector/C reported, `nil` for one with a
    /// result.
    func noteInsert(_ id: UInt64?, rows: Int) {
        lastInsert = (id, rows)
    }

    /// An `INSERT … RETURNING` row's id, as the engine read it: the last one is the last row's.
    public func insertReturned(id: Int64) {
        lastInsert = (UInt64(bitPattern: id), 1)
    }

    @_spi(CRUDDriver) public func release(_ statement: MySQLStatement) {
        statement.clear()
        _ = cache.checkIn(statement)
    }

    /// Runs through Connector/C's non-blocking calls, waiting on `CRUDEventLoop`.
    @_spi(CRUDDriver) public var executesWithoutBlocking: Bool { true }

    @_spi(CRUDDriver) public nonisolated(nonsending) func execute(_ statement: MySQLStatement, reading: Bool) async throws {
        try ensureConnected()
        try await statement.executeWithoutBlocking()
    }

    /// Waits on the event loop for what a non-blocking call asked in `status` (`MYSQL_WAIT_…`), and
    /// returns what came, for its `_cont`. A wait that fails leaves the call unfinished: the
    /// connection is then lost, and the next call reconnects.
    /// - Throws: `CRUDSQLExeError` of kind `.connectionLost`.
    nonisolated(nonsending) func awaitSocket(_ status: Int32, connecting: Bool = false) async throws -> Int32 {
        // A statement's wait for the server's answer, on its own: the other waits' locals would cost
        // the calling frame blocks the task allocates at each step.
        let readsAnswer = !connecting && status & MYSQL_WAIT_WRITE == 0 && status & (MYSQL_WAIT_READ | MYSQL_WAIT_EXCEPT) != 0
        guard readsAnswer else { return try await awaitSocketOtherwise(status, connecting: connecting) }
        do {
            try await CRUDEventLoop.shared.wait(until: .readable, on: mysql_get_socket(handle))
            return MYSQL_WAIT_READ
        } catch {
            lost = true
            throw error
        }
    }

    /// `awaitSocket` for a write, a connect's step or a timeout.
    @inline(never)
    private nonisolated(nonsending) func awaitSocketOtherwise(_ status: Int32, connecting: Bool) async throws -> Int32 {
        let socket = mysql_get_socket(handle)
        do {
            // A connect asks for a timeout beside the socket (MYSQL_OPT_CONNECT_TIMEOUT); a statement's
            // wait is ended by the server's answer, or by the cancel that `KILL QUERY` makes it send.
            if connecting, status & MYSQL_WAIT_TIMEOUT != 0, status & (MYSQL_WAIT_READ | MYSQL_WAIT_WRITE | MYSQL_WAIT_EXCEPT) != 0 {
                let readiness: CRUDEventLoop.Readiness = status & MYSQL_WAIT_WRITE != 0 ? .writable : .readable
                let timeout = Duration.milliseconds(Int(mysql_get_timeout_value_ms(handle)))
                let ready = try await CRUDEventLoop.shared.wait(until: readiness, on: socket, timeout: timeout)
                return ready ? (readiness == .writable ? MYSQL_WAIT_WRITE : MYSQL_WAIT_READ) : MYSQL_WAIT_TIMEOUT
            }
            if status & MYSQL_WAIT_WRITE != 0 {
                try await CRUDEventLoop.shared.wait(until: .writable, on: socket)
                return MYSQL_WAIT_WRITE
            }
            if status & (MYSQL_WAIT_READ | MYSQL_WAIT_EXCEPT) != 0 {
                try await CRUDEventLoop.shared.wait(until: .readable, on: socket)
                return MYSQL_WAIT_READ
            }
            // Asked for a timeout alone (none of the connection's are set): wait it out.
            try await Task.sleep(for: .milliseconds(Int(mysql_get_timeout_value_ms(handle))))
            return MYSQL_WAIT_TIMEOUT
        } catch {
            lost = true
            throw error
        }
    }

    /// Runs text-protocol SQL, possibly several statements, and reads every result.
    @_spi(CRUDDriver) public func execute(_ sql: String) throws {
        let utf8 = try queryText(sql)
        guard mysql_real_query(handle, utf8, UInt(utf8.count)) == 0 else { throw connectionError(sql: sql) }
        repeat {
            try discard(mysql_store_result(handle), sql: sql)
        } while try hasMoreResults(mysql_next_result(handle), sql: sql)
    }

    /// The same without blocking (`mysql_real_query_start`/`_cont` and the like), waiting on the
    /// event loop.
    @_spi(CRUDDriver) public nonisolated(nonsending) func execute(_ sql: String) async throws {
        let utf8 = try queryText(sql)
        var failed: Int32 = 0
        var status = mysql_real_query_start(&failed, handle, utf8, UInt(utf8.count))
        while status != 0 { status = mysql_real_query_cont(&failed, handle, try await awaitSocket(status)) }
        // Read by Connector/C until the call ends (a text longer than its buffer, a full socket).
        withExtendedLifetime(utf8) {}
        guard failed == 0 else { throw connectionError(sql: sql) }
        var next: Int32 = 0
        repeat {
            var result: UnsafeMutablePointer<MYSQL_RES>?
            status = mysql_store_result_start(&result, handle)
            while status != 0 { status = mysql_store_result_cont(&result, handle, try await awaitSocket(status)) }
            try discard(result, sql: sql)
            status = mysql_next_result_start(&next, handle)
            while status != 0 { status = mysql_next_result_cont(&next, handle, try await awaitSocket(status)) }
        } while try hasMoreResults(next, sql: sql)
    }

    /// `sql`'s bytes, refused when the server would not take them in one packet.
    private func queryText(_ sql: String) throws -> [UInt8] {
        try ensureConnected()
        let utf8 = Array(sql.utf8)
        if utf8.count + 64 > maxAllowedPacket { throw packetTooLarge(bytes: utf8.count + 64, sql: sql) }
        return utf8
    }

    /// Frees one result of text-protocol SQL; a statement that should have had rows but has none failed.
    private func discard(_ result: UnsafeMutablePointer<MYSQL_RES>?, sql: String) throws {
        if let result {
            mysql_free_result(result)
        } else if mysql_field_count(handle) != 0 {
            throw connectionError(sql: sql)
        }
    }

    /// Whether text-protocol SQL has another result to read, after `mysql_next_result` said `next`.
    private func hasMoreResults(_ next: Int32, sql: String) throws -> Bool {
        if next > 0 { throw connectionError(sql: sql) }
        return next == 0
    }

    /// The one integer a text-protocol query returns.
    private func integer(_ sql: String) throws -> Int {
        let utf8 = Array(sql.utf8)
        guard mysql_real_query(handle, utf8, UInt(utf8.count)) == 0, let result = mysql_store_result(handle) else {
            throw connectionError(sql: sql)
        }
        return try number(in: result, of: sql)
    }

    /// `integer(_:)` waiting for the answer on the event loop.
    private nonisolated(nonsending) func integerAwaiting(_ sql: String) async throws -> Int {
        let utf8 = Array(sql.utf8)
        var failed: Int32 = 0
        var status = mysql_real_query_start(&failed, handle, utf8, UInt(utf8.count))
        while status != 0 { status = mysql_real_query_cont(&failed, handle, try await awaitSocket(status)) }
        withExtendedLifetime(utf8) {}
        var result: UnsafeMutablePointer<MYSQL_RES>?
        if failed == 0 {
            status = mysql_store_result_start(&result, handle)
            while status != 0 { status = mysql_store_result_cont(&result, handle, try await awaitSocket(status)) }
        }
        guard let result else { throw connectionError(sql: sql) }
        return try number(in: result, of: sql)
    }

    /// The number in the first column of `result`'s first row, which it frees.
    private func number(in result: UnsafeMutablePointer<MYSQL_RES>, of sql: String) throws -> Int {
        defer { mysql_free_result(result) }
        guard let row = mysql_fetch_row(result), let field = row[0], let value = Int(String(cString: field)) else {
            throw CRUDSQLExeError("MySQL \(target): \(sql) returned no number", sql: sql)
        }
        return value
    }

    /// The `AUTO_INCREMENT` value of the last row of this connection's last insert, `nil` when it
    /// made none: the same row as on the other backends.
    /// - Throws: `CRUDSQLExeError` when the server gave a multi-row insert ids that need not be
    ///   consecutive, or cannot be asked.
    @_spi(CRUDDriver) public func lastInsertId(using runner: some CRUDCatalogRunner<Statement>) throws -> Int? {
        try lastInsertIdUnsigned(using: runner).map { Int(truncatingIfNeeded: $0) }
    }

    /// The same, unsigned, as MySQL reports it: Perfect-CRUD's `lastInsertId() -> UInt64?`.
    ///
    /// Connector/C reports the first id the server generated for a multi-row insert but the last one
    /// given explicitly, told apart by the server's `LAST_INSERT_ID()` (its first generated one);
    /// the last generated one is computed from the first, `auto_increment_increment` and the row
    /// count, where `innodb_autoinc_lock_mode` makes them consecutive (below 2; MariaDB's default is
    /// 1). Of an `INSERT … RETURNING` it reports nothing: the engine tells the ids it read.
    /// - Throws: `CRUDSQLExeError` as `lastInsertId()`, and for an `INSERT … RETURNING` whose ids
    ///   nobody read.
    private func lastInsertIdUnsigned(using runner: some CRUDCatalogRunner<Statement>) throws -> UInt64? {
        let (reported, rows) = lastInsert
        guard let reported else {
            throw CRUDSQLExeError("lastInsertId(): the last insert returned rows (INSERT … RETURNING), of which MySQL reports no id; "
                + "read the id from the rows it returned")
        }
        guard reported != 0 else { return nil }
        guard rows > 1 else { return reported }
        var server: (first: UInt64, increment: UInt64, lockMode: Int64)?
        try runner.forEachRow("SELECT LAST_INSERT_ID(), @@auto_increment_increment, @@innodb_autoinc_lock_mode", []) { statement in
            server = (UInt64(bitPattern: try statement.readInt64(0)), UInt64(try statement.readInt64(1)), try statement.readInt64(2))
        }
        guard let server, server.first == reported else { return reported }
        guard server.lockMode < 2 else {
            throw CRUDSQLExeError("lastInsertId(): the server runs with innodb_autoinc_lock_mode = 2, which may give the rows of one insert "
                + "ids that are not consecutive, so the last row's id is not known; insert that row on its own, or use returning(…)")
        }
        return reported + UInt64(rows - 1) * server.increment
    }

    private func ensureConnected() throws {
        guard lost else { return }
        throw CRUDSQLExeError("lost the connection to MySQL \(target); the next call outside a transaction reconnects", code: "2006",
                              kind: .connectionLost)
    }

    @_spi(CRUDDriver) public func columns(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> [CRUDDatabaseColumn]? {
        var columns: [CRUDDatabaseColumn] = []
        try runner.forEachRow("""
            SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE = 'YES', COLUMN_KEY = 'PRI' FROM information_schema.COLUMNS
            WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION
            """, [.text(table)]) { row in
            columns.append(CRUDDatabaseColumn(name: try row.readText(0), declaredType: try row.readText(1),
                                              isNullable: try row.readInt64(2) != 0, isPrimaryKey: try row.readInt64(3) != 0))
        }
        return columns.isEmpty ? nil : columns
    }

    @_spi(CRUDDriver) public func constraintNames(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> Set<String> {
        var names: Set<String> = []
        try runner.forEachRow("""
            SELECT CONSTRAINT_NAME FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?
            """, [.text(table)]) { names.insert(try $0.readText(0)) }
        return names
    }

    /// The indexes that are no key nor constraint's: not `PRIMARY`, nor named as a constraint (a
    /// unique constraint's index, or the one a foreign key made for itself).
    @_spi(CRUDDriver) public func indexes(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws
        -> [(name: String, sql: String, columns: [String])] {
        var found: [(name: String, unique: Bool, columns: [String])] = []
        try runner.forEachRow("""
            SELECT s.INDEX_NAME, s.NON_UNIQUE, s.COLUMN_NAME FROM information_schema.STATISTICS AS s
            WHERE s.TABLE_SCHEMA = DATABASE() AND s.TABLE_NAME = ? AND s.INDEX_NAME <> 'PRIMARY' AND NOT EXISTS (
                SELECT 1 FROM information_schema.TABLE_CONSTRAINTS AS c
                WHERE c.TABLE_SCHEMA = s.TABLE_SCHEMA AND c.TABLE_NAME = s.TABLE_NAME AND c.CONSTRAINT_NAME = s.INDEX_NAME)
            ORDER BY s.INDEX_NAME, s.SEQ_IN_INDEX
            """, [.text(table)]) { row in
            let name = try row.readText(0)
            let column = try row.readText(2)
            if found.last?.name == name {
                found[found.count - 1].columns.append(column)
            } else {
                found.append((name, try row.readInt64(1) == 0, [column]))
            }
        }
        return found.map { index in
            (index.name, "CREATE \(index.unique ? "UNIQUE " : "")INDEX \(dialect.quote(index.name)) ON \(dialect.quote(table)) "
                + "(\(index.columns.map(dialect.quote).joined(separator: ", ")))", index.columns)
        }
    }
}

extension MySQLConnectOptions {
    /// Connects `handle` to `server` (or the socket) as these options say, waiting up to
    /// `connectTimeout`: whether it connected (the handle holds the error otherwise).
    func connect(_ handle: UnsafeMutablePointer<MYSQL>, to server: MySQLHost, flags: UInt = 0) -> Bool {
        setConnectTimeout(handle)
        return mysql_real_connect(handle, server.host, username, password, database, UInt32(server.port ?? 0), socket, flags) != nil
    }

    /// Bounds `handle`'s connects by `connectTimeout`.
    func setConnectTimeout(_ handle: UnsafeMutablePointer<MYSQL>) {
        var timeout = UInt32(connectTimeout)
        _ = mysql_options(handle, MYSQL_OPT_CONNECT_TIMEOUT, &timeout)
    }
}
#endif
