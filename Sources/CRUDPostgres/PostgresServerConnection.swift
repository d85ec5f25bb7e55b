import CLibPQ
@_spi(CRUDDriver) import CRUD
import Foundation

/// One libpq connection to the server: a session's own (the default), or one of those several
/// sessions share (`PostgresServerConnections`).
///
/// `@unchecked Sendable`: shared, its state is guarded by its group's lock, and `handle` is used
/// under that lock or by the session holding it (`owner`), whose pipeline is then empty; a
/// session's own is used by that session alone, but for `cancel()`, which `cancelLock` guards.
final class PostgresServerConnection: @unchecked Sendable, CRUDSocketHandler {
    let handle: OpaquePointer
    /// Its place among its group's, which a statement's preparations are marked by.
    let index: Int
    /// The group it belongs to; `nil` for a session's own.
    private weak var group: PostgresServerConnections?
    /// Counts the reconnects: a statement prepared before one is gone. A shared one's holder changes
    /// it under the group's lock, which the group reads it under while a session holds it.
    var generation = 0
    /// Whether the server session of `generation` is not the one libpq logged into (a pooler
    /// answered the login), once asked: only its holder reads and sets it.
    var proxied: (generation: Int, value: Bool)?
    /// What `PQcancel` needs, made at each connect.
    private var cancelHandle: OpaquePointer?
    private let cancelLock = NSLock()

    // Shared only, guarded by the group's lock, which makes each access exclusive (so Swift's
    // dynamic checks are skipped):
    /// The session holding it.
    @exclusivity(unchecked) var owner: ObjectIdentifier?
    /// Whether the owner took it in a task: it gives it back only when Swift's cooperative pool runs
    /// that task again.
    @exclusivity(unchecked) var ownerAwaits = false
    /// The session that held it before `owner`: whether `lastval()` is still `owner`'s.
    @exclusivity(unchecked) var previousOwner: ObjectIdentifier?
    /// The session that held it last (`owner`, while one does).
    @exclusivity(unchecked) var lastOwner: ObjectIdentifier?
    /// A session waiting to hold it, for which it takes no more reads.
    @exclusivity(unchecked) var reservedFor: ObjectIdentifier?
    /// Reads sent and not yet answered, in the order the server answers them.
    @exclusivity(unchecked) var inFlight: [PostgresRead] = []
    /// Reads sent since the last Sync, which go with the next.
    @exclusivity(unchecked) var unsynced = 0
    /// Syncs sent whose own result is not read yet.
    @exclusivity(unchecked) var syncsPending = 0
    /// Whether its pipeline is empty: every read answered, every Sync's result read.
    var isIdle: Bool { inFlight.isEmpty && syncsPending == 0 }
    /// Whether a session may hold it: its pipeline is empty, and no cancel request is under way,
    /// which could reach the session's statements.
    var isFree: Bool { isIdle && cancelsUnderway == 0 }
    /// Statements gone, to deallocate once it takes reads again, each with the `generation` it was
    /// prepared in: one prepared before a reconnect went with the old session, and a `DEALLOCATE`
    /// of it would fail, and abort the reads sent with it.
    @exclusivity(unchecked) var pendingDeallocations: [(name: String, generation: Int)] = []
    /// The error of a read that failed since the last Sync: why the reads behind it did not run.
    @exclusivity(unchecked) var failureInBatch: String?
    /// Whether the event loop watches its socket.
    @exclusivity(unchecked) var watched = false
    /// Whether a cancel request for it waits to begin (`requestCancel`).
    @exclusivity(unchecked) var cancelQueued = false
    /// Cancel requests for it that wait or run: reads sent meanwhile may be hit.
    @exclusivity(unchecked) var cancelsUnderway = 0
    /// When it is repaired, once it stayed unusable and idle since (`PostgresServerConnections.repairs`).
    @exclusivity(unchecked) var repairDue: ContinuousClock.Instant?
    /// Whether libpq holds output it could not send yet.
    @exclusivity(unchecked) var flushPending = false
    /// Whether it connects again before its next use: an answer was left half read, or (shared) the
    /// server failed a read with a connection-class error (its session terminated, the server
    /// shutting down), so it takes no more reads. Under the group's lock; its holder goes through
    /// `needsReconnect` and `setBroken`.
    @exclusivity(unchecked) var broken = false
    /// The group's lock, for a shared one's holder to take around `broken` and `generation` (the
    /// group itself is weak: it keeps its server connections).
    private let groupLock: NSCondition?

    /// `broken`, for the session using it: a shared one's read under its group's lock, which orders
    /// it after what the previous holder set.
    var needsReconnect: Bool {
        underGroupLock { broken }
    }

    /// Sets `broken`, for the session using it (see `needsReconnect`).
    func setBroken(_ value: Bool) {
        underGroupLock { broken = value }
    }

    /// Runs `body` under the group's lock when shared.
    private func underGroupLock<T>(_ body: () -> T) -> T {
        guard let groupLock else { return body() }
        return groupLock.withLock(body)
    }

    /// How long a reconnect without blocking waits for the server at each step, as libpq's
    /// `connect_timeout` bounds a blocking one (at least 2 s, as libpq takes it); `nil`: no limit.
    let connectTimeout: Duration?

    /// Connects with libpq's keywords; `group` when shared, at `index` among its connections.
    /// - Throws: `CRUDSQLExeError` naming the server and saying what failed.
    init(parameters: [String: String], expandDatabase: Bool, group: PostgresServerConnections? = nil, index: Int = 0) throws {
        // A URL in `dbname` first: libpq keeps the last value of a keyword, so the keywords given
        // beside it (a standby's `target_session_attrs`) take the place of the URL's.
        let keywords = parameters.keys.sorted { $0 == "dbname" && $1 != "dbname" }
        let values = keywords.map { parameters[$0]! }
        let connection = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, expandDatabase ? 1 : 0)
            }
        }
        guard let connection else { throw CRUDSQLExeError("cannot connect to PostgreSQL: libpq could not allocate a connection") }
        let described = "PostgreSQL " + PostgresConnection.describe(parameters, expandDatabase: expandDatabase)
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
            let failure = Self.connectFailure(connection, message: message)
            PQfinish(connection)
            throw CRUDSQLExeError("cannot connect to \(described): \(message)", code: failure.code, databaseMessage: message, kind: failure.kind)
        }
        handle = connection
        self.group = group
        groupLock = group?.lock
        self.index = index
        connectTimeout = parameters["connect_timeout"].flatMap { Int($0) }.flatMap { $0 > 0 ? .seconds(max(2, $0)) : nil }
        cancelHandle = PQgetCancel(connection)
        Self.configure(connection)
    }

    deinit {
        if let cancelHandle { PQfreeCancel(cancelHandle) }
        PQfinish(handle)
    }

    /// What every session of the connection needs, at connect and after a reconnect: notices
    /// (`DROP TABLE IF EXISTS` of a missing table, say) are not errors, so they stay off stderr;
    /// and sends never block, for the async path (`PQexec…`, the synchronous calls, block as
    /// ever: libpq makes them wait whatever the mode).
    private static func configure(_ connection: OpaquePointer) {
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        PQsetnonblocking(connection, 1)
    }

    /// What a failed connection attempt was. libpq keeps no SQLSTATE for it, so it is told by how far
    /// the attempt got: one that never reached a login (refused, unreachable, the server starting up
    /// or shutting down) is an outage, `.connectionLost` with 08001, which retries look for; one
    /// that needed or sent a password was refused by a server that runs, and keeps `.other`, unless
    /// every server that let it log in was of another kind than `target_session_attrs` asks (no
    /// primary while a standby is promoted), or the server went away during the login (killed as
    /// the attempt reached it): an outage too. libpq says those only in its message.
    private static func connectFailure(_ connection: OpaquePointer, message: String) -> (kind: CRUDSQLExeError.Kind, code: String?) {
        let passwordUsed = PQconnectionNeedsPassword(connection) != 0 || PQconnectionUsedPassword(connection) != 0
        if passwordUsed, !outageDuringLogin.contains(where: message.contains) { return (.other, "28000") }
        return (.connectionLost, "08001")
    }

    /// libpq's reasons for passing over a server that `target_session_attrs` does not want, and its
    /// words for a server that went away while the login ran.
    private static let outageDuringLogin = ["session is read-only", "session is not read-only", "server is in hot standby mode",
                                            "server is not in hot standby mode", "server closed the connection unexpectedly",
                                            "the database system is shutting down", "the database system is starting up",
                                            "terminating connection due to administrator command"]

    private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        pointers.append(nil)
        return body(pointers.map { $0.map { UnsafePointer($0) } })
    }

    /// Whether the connection to the server is up.
    var isWorking: Bool {
        PQstatus(handle) == CONNECTION_OK
    }

    /// `PQcancel`: asks the server, over a connection of its own, to cancel what this connection
    /// runs. It returns once the server took the request.
    func cancel() {
        cancelLock.withLock {
            guard let cancelHandle else { return }
            var message = [CChar](repeating: 0, count: 256)
            _ = PQcancel(cancelHandle, &message, Int32(message.count))
        }
    }

    /// Whether a statement whose preparations are `marks` (by index, the generation it was prepared
    /// in, plus one; 0 for none) is prepared on this connection now.
    func holdsPreparation(marked marks: [Int]) -> Bool {
        index < marks.count && marks[index] == generation + 1
    }

    /// Connects again after a loss; statements prepared before are gone (`generation`). By the
    /// session using or holding the connection.
    /// - Throws: `CRUDSQLExeError` when the server still cannot be reached.
    func reconnect(target: String) throws {
        PQreset(handle)
        guard isWorking else {
            group?.reconnectEnded(succeeded: false)
            throw reconnectFailure(target: target)
        }
        reconnected()
    }

    /// `reconnect(target:)` waiting for the server on the event loop (`PQresetStart`, then
    /// `PQresetPoll` each time the socket is ready as it asks), so no thread waits for a server that
    /// is slow to answer, or does not; `stepTimeout` bounds each step instead of `connectTimeout`.
    /// - Throws: `CRUDSQLExeError` when the server cannot be reached, or does not answer a step within
    ///   the bound.
    nonisolated(nonsending) func reconnectAwaiting(target: String, stepTimeout: Duration? = nil) async throws {
        var succeeded = false
        defer { if !succeeded { group?.reconnectEnded(succeeded: false) } }
        guard PQresetStart(handle) == 1 else { throw reconnectFailure(target: target) }
        // libpq's first step writes (its docs: act as if the last poll returned WRITING).
        var polled = PGRES_POLLING_WRITING
        while polled != PGRES_POLLING_OK {
            guard polled == PGRES_POLLING_READING || polled == PGRES_POLLING_WRITING else { throw reconnectFailure(target: target) }
            let readiness: CRUDEventLoop.Readiness = polled == PGRES_POLLING_READING ? .readable : .writable
            // The socket may be another at each step (the next host's, a retry without TLS).
            let socket = PQsocket(handle)
            if let limit = stepTimeout ?? connectTimeout {
                guard try await CRUDEventLoop.shared.wait(until: readiness, on: socket, timeout: limit) else {
                    throw CRUDSQLExeError("cannot reconnect to PostgreSQL \(target): no answer within the connect timeout of \(limit)",
                                          code: "08006", kind: .connectionLost)
                }
            } else {
                try await CRUDEventLoop.shared.wait(until: readiness, on: socket)
            }
            polled = PQresetPoll(handle)
        }
        reconnected()
        succeeded = true
    }

    /// Why a reconnect failed, as libpq says it.
    private func reconnectFailure(target: String) -> CRUDSQLExeError {
        let message = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
        return CRUDSQLExeError("cannot reconnect to PostgreSQL \(target): \(message)", code: "08006", databaseMessage: message,
                               kind: .connectionLost)
    }

    /// A reconnect succeeded: the new session's setup, and what the old one's loss ends.
    private func reconnected() {
        Self.configure(handle)
        // The new session has another process and key.
        let fresh = PQgetCancel(handle)
        cancelLock.withLock {
            if let cancelHandle { PQfreeCancel(cancelHandle) }
            cancelHandle = fresh
        }
        underGroupLock {
            broken = false
            generation += 1
        }
        group?.reconnectEnded(succeeded: true)
    }

    /// Reads what the server sent, for the group.
    func socketIsReady() {
        group?.answer(on: self)
    }
}

/// A read in a shared server connection's pipeline: what was sent, and who waits for its answer.
struct PostgresRead {
    /// Tells reads apart over time (0 for the group's own commands).
    let serial: Int
    let session: ObjectIdentifier
    /// The statement, bound; `nil` for a command of the group's own (`DEALLOCATE`), or once nobody
    /// waits any more.
    var statement: PostgresStatement?
    let command: String
    /// `nil` once nobody waits: the task was cancelled before the server reached the read. Resumed
    /// by whoever takes the read out of its group's queue or a server connection's reads in flight,
    /// under the group's lock, so once: unchecked, since a checked one allocates a record per read.
    var task: UnsafeContinuation<PostgresAnswer?, any Error>?
    var answer: OpaquePointer?
    /// The statement's preparation on this server connection was sent before it, and its results
    /// have not ended yet: they come first.
    var preparing = false
    /// Its session asked to cancel it: the server is asked to stop it once it runs it.
    var cancelled = false
    /// A read before it in its batch failed, so it did not run.
    var aborted = false
    /// A cancel meant for another read was sent while this one was in flight, and may hit it.
    var exposed = false
    var retries = 0
}

/// A server's answer to a pipelined read, handed from the event loop's thread to the read's task.
///
/// `@unchecked Sendable`: the result is the task's alone once handed over; the event loop's thread
/// keeps no reference to it.
struct PostgresAnswer: @unchecked Sendable {
    let result: OpaquePointer?
}
