import Foundation

/// What a pooled connection is for.
public enum CRUDConnectionRole: Sendable, CustomStringConvertible {
    /// SQLite's one writer: every write and transaction, one at a time.
    case writer
    /// A SQLite reader on WAL: queries, concurrently with each other and with the writer.
    case reader
    /// A server connection: anything (PostgreSQL).
    case general
    /// The one connection of a database that cannot have more (SQLite `:memory:`), or a child's own.
    case single

    public var description: String {
        switch self {
        case .writer: "writer"
        case .reader: "reader"
        case .general: "general"
        case .single: "single"
        }
    }
}

/// How a driver wants its connections pooled.
public enum CRUDPoolLayout: Sendable {
    /// One writer and up to `maxReaders` readers (SQLite on WAL). Writes are serialized in the
    /// process; reads run concurrently on snapshots.
    case writerAndReaders(maxReaders: Int)
    /// Between `minimum` and `maximum` interchangeable connections (PostgreSQL).
    case interchangeable(minimum: Int, maximum: Int)
    /// One connection that every caller shares in turn.
    case single
}

/// What an operation needs from the pool.
@usableFromInline
enum CRUDAccess: Sendable {
    case read, write
}

/// The connections of one database: leases them to one caller at a time, opens more up to the
/// layout's limits, replaces broken ones, and bounds how long a caller waits.
///
/// It is not generic: it handles sessions through their non-generic base, so leasing runs as plain
/// code, without instantiating generic types at run time on every query.
///
/// `@unchecked Sendable`: every mutable property is guarded by `lock`.
final class CRUDConnectionPool: @unchecked Sendable {
    typealias Session = CRUDSessionSlot

    private enum Waiter {
        case thread(NSCondition, Box)
        case task(CheckedContinuation<Session, any Error>)
    }

    /// Where a waiting thread finds the session handed to it. Guarded by the pool's `lock`.
    private final class Box {
        var session: Session?
        var failure: (any Error)?
    }

    let layout: CRUDPoolLayout
    /// How long a caller waits for a connection before `CRUDSQLExeError`.
    let timeout: Duration
    private let open: @Sendable (CRUDConnectionRole) throws -> CRUDSessionSlot
    private let describe: String

    private let lock = NSLock()
    private var idleWriter: Session?
    private var writerExists = false
    private var idle: [Session] = []
    private var opened = 0
    private var writeWaiters: [(id: UInt64, waiter: Waiter)] = []
    private var readWaiters: [(id: UInt64, waiter: Waiter)] = []
    private var nextWaiter: UInt64 = 0
    /// The timeouts of waiting tasks, cancelled when they are served.
    private var timers: [UInt64: Task<Void, Never>] = [:]
    /// The session of a `.single` layout, shared by every caller in turn.
    private let shared: Session?

    /// - Parameters:
    ///   - first: the session of an open connection to start with (the configuration opened it to
    ///     check the database can be reached), in the role `firstRole(of:)` gives.
    ///   - open: opens another connection for a role, in a session.
    init(layout: CRUDPoolLayout, first: CRUDSessionSlot, timeout: Duration, describe: String,
         open: @escaping @Sendable (CRUDConnectionRole) throws -> CRUDSessionSlot) throws {
        self.layout = layout
        self.timeout = timeout
        self.describe = describe
        self.open = open
        switch layout {
        case .writerAndReaders:
            idleWriter = first
            writerExists = true
            shared = nil
        case let .interchangeable(minimum, _):
            idle = [first]
            for _ in 1 ..< max(1, minimum) {
                idle.append(try open(.general))
            }
            opened = idle.count
            shared = nil
        case .single:
            shared = first
        }
    }

    /// The role the first connection of a layout takes.
    static func firstRole(of layout: CRUDPoolLayout) -> CRUDConnectionRole {
        switch layout {
        case .writerAndReaders: .writer
        case .interchangeable: .general
        case .single: .single
        }
    }

    // MARK: - Leasing

    /// What to do for a request: a session to use now, a role to open one for, or wait.
    private enum Grant {
        case session(Session)
        case open(CRUDConnectionRole)
        case wait
    }

    /// Called holding `lock`.
    private func grant(_ access: CRUDAccess) -> Grant {
        switch layout {
        case .single:
            return .session(shared!)
        case let .writerAndReaders(maxReaders):
            if access == .write {
                if let writer = idleWriter {
                    idleWriter = nil
                    return .session(writer)
                }
                if !writerExists {
                    writerExists = true
                    return .open(.writer)
                }
                return .wait
            }
            if let reader = idle.popLast() { return .session(reader) }
            if opened < maxReaders {
                opened += 1
                return .open(.reader)
            }
            return .wait
        case let .interchangeable(_, maximum):
            if let session = idle.popLast() { return .session(session) }
            if opened < maximum {
                opened += 1
                return .open(.general)
            }
            return .wait
        }
    }

    /// Opens a connection for a granted role; on failure gives the slot back.
    private func opening(_ role: CRUDConnectionRole) throws -> Session {
        do {
            return try open(role)
        } catch {
            lock.withLock { forgetSlot(role) }
            throw error
        }
    }

    /// Called holding `lock`: a slot of `role` is free again (its connection failed or was closed).
    private func forgetSlot(_ role: CRUDConnectionRole) {
        switch role {
        case .writer: writerExists = false
        case .reader, .general: opened -= 1
        case .single: break
        }
    }

    private func waitError(_ access: CRUDAccess) -> CRUDSQLExeError {
        let what = switch layout {
        case .writerAndReaders: access == .write ? "the writer connection" : "a reader connection"
        case let .interchangeable(_, maximum): "a connection (all \(maximum) of the pool are in use)"
        case .single: "the connection"
        }
        return CRUDSQLExeError("timed out after \(timeout) waiting for \(what) of \(describe); "
            + "raise the pool's size or timeout, or hold connections for shorter (a long transaction or an unfinished cursor)")
    }

    /// A session for `access` now, opening a new connection if the layout allows; otherwise `nil`,
    /// after enqueueing the waiter that `waiter` makes (if any) under the same lock, so that no
    /// session given back in between is missed.
    private func acquire(_ access: CRUDAccess, waiter: ((UInt64) -> Waiter)?) throws -> Session? {
        lock.lock()
        switch grant(access) {
        case let .session(session):
            lock.unlock()
            return session
        case let .open(role):
            lock.unlock()
            return try opening(role)
        case .wait:
            if let waiter {
                let id = nextWaiter
                nextWaiter += 1
                enqueue(access, id: id, waiter(id))
            }
            lock.unlock()
            return nil
        }
    }

    /// A session for `access` if one can be had without waiting, or `nil`.
    func leaseNow(_ access: CRUDAccess) throws -> Session? {
        try acquire(access, waiter: nil)
    }

    /// A session for `access`, waiting up to `timeout` for one to be free. The caller gives it back
    /// with `giveBack`.
    /// - Throws: `CRUDSQLExeError` on timeout, or when a new connection cannot be opened.
    func lease(_ access: CRUDAccess) throws -> Session {
        // Made only when the caller has to wait.
        var waiting: (id: UInt64, condition: NSCondition, box: Box)?
        if let session = try acquire(access, waiter: { id in
            waiting = (id, NSCondition(), Box())
            return .thread(waiting!.condition, waiting!.box)
        }) {
            return session
        }
        let (id, condition, box) = waiting!
        let deadline = Date().addingTimeInterval(timeout.seconds)
        condition.lock()
        while lock.withLock({ box.session == nil && box.failure == nil }) {
            if !condition.wait(until: deadline) {
                let removed = lock.withLock { removeWaiter(id: id) != nil }
                if removed {
                    condition.unlock()
                    throw CRUDLogging.logged(waitError(access))
                }
            }
        }
        condition.unlock()
        return try lock.withLock {
            if let failure = box.failure { throw failure }
            return box.session!
        }
    }

    /// The same, suspending the calling task instead of blocking a thread while it waits. A task
    /// cancelled while it waits stops waiting.
    /// - Throws: `CRUDSQLExeError` as the blocking form; `CancellationError` when the task is
    ///   cancelled while it waits.
    func lease(_ access: CRUDAccess) async throws -> Session {
        let ticket = WaitTicket()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                lock.lock()
                switch grant(access) {
                case let .session(session):
                    lock.unlock()
                    continuation.resume(returning: session)
                case let .open(role):
                    lock.unlock()
                    // Connecting blocks: it runs on a queue of the library's, not on the cooperative pool.
                    connectingQueue.async { continuation.resume(with: Result { try self.opening(role) }) }
                case .wait:
                    // Checked under the lock that the cancellation handler takes: a cancellation either
                    // came before (and is seen here) or finds the ticket.
                    guard !Task.isCancelled else {
                        lock.unlock()
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    let id = nextWaiter
                    nextWaiter += 1
                    ticket.id = id
                    let timeout = self.timeout
                    enqueue(access, id: id, .task(continuation))
                    timers[id] = Task.detached {
                        try? await Task.sleep(for: timeout)
                        guard !Task.isCancelled else { return }
                        let removed = self.lock.withLock { self.removeWaiter(id: id) != nil }
                        if removed { continuation.resume(throwing: CRUDLogging.logged(self.waitError(access))) }
                    }
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            guard let id = ticket.id, let waiter = removeWaiter(id: id) else {
                lock.unlock()
                return
            }
            lock.unlock()
            if case let .task(continuation) = waiter { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Which waiter an async `lease` enqueued, for its cancellation handler. Guarded by the pool's
    /// `lock`. (`@unchecked Sendable`: that lock.)
    private final class WaitTicket: @unchecked Sendable {
        var id: UInt64?
    }

    /// Called holding `lock`.
    private func enqueue(_ access: CRUDAccess, id: UInt64, _ waiter: Waiter) {
        if access == .write, case .writerAndReaders = layout {
            writeWaiters.append((id, waiter))
        } else {
            readWaiters.append((id, waiter))
        }
    }

    /// Called holding `lock`: removes a waiter that gave up (timed out, cancelled) and cancels its
    /// timer; `nil` when it was already served.
    private func removeWaiter(id: UInt64) -> Waiter? {
        timers.removeValue(forKey: id)?.cancel()
        if let index = writeWaiters.firstIndex(where: { $0.id == id }) {
            return writeWaiters.remove(at: index).waiter
        }
        if let index = readWaiters.firstIndex(where: { $0.id == id }) {
            return readWaiters.remove(at: index).waiter
        }
        return nil
    }

    /// Takes `session` out of the pool when it is idle, for a caller that needs that very connection
    /// (`Insert.lastInsertId()`); `false` when someone else holds it. Give it back with `giveBack`.
    func take(_ session: Session) -> Bool {
        lock.withLock {
            if idleWriter === session {
                idleWriter = nil
                return true
            }
            if let index = idle.firstIndex(where: { $0 === session }) {
                idle.remove(at: index)
                return true
            }
            return false
        }
    }

    /// Takes back a leased session: hands it to the first waiter for its role, or keeps it idle. A
    /// connection that broke (a server restart) is closed, and a waiter gets a new one opened for it.
    func giveBack(_ session: Session) {
        guard session.role != .single else { return }
        // Under the session's lock: an async caller's last statement ran on the session's queue.
        session.gate.lock()
        let usable = session.transactionDepth == 0 && session.isUsable
        let lost = session.transactionDepth == 0 && !session.isUsable
        session.gate.unlock()
        lock.lock()
        if lost {
            // Lost: the others may be too, so each asks the server before its next statement.
            idleWriter?.probeBeforeUse = true
            for other in idle { other.probeBeforeUse = true }
        }
        guard session.role == .writer ? !writeWaiters.isEmpty : !readWaiters.isEmpty else {
            if usable {
                if session.role == .writer { idleWriter = session } else { idle.append(session) }
            } else {
                forgetSlot(session.role)
            }
            lock.unlock()
            return
        }
        let (id, waiter) = session.role == .writer ? writeWaiters.removeFirst() : readWaiters.removeFirst()
        timers.removeValue(forKey: id)?.cancel()
        lock.unlock()
        hand(usable ? .success(session) : Result { try opening(session.role) }, to: waiter)
    }

    private func hand(_ result: Result<Session, any Error>, to waiter: Waiter) {
        switch waiter {
        case let .thread(condition, box):
            condition.lock()
            lock.withLock {
                switch result {
                case let .success(session): box.session = session
                case let .failure(error): box.failure = error
                }
            }
            condition.signal()
            condition.unlock()
        case let .task(continuation):
            continuation.resume(with: result)
        }
    }
}

/// Where async callers' new connections are opened.
private let connectingQueue = DispatchQueue(label: "CRUD.connecting", attributes: .concurrent)

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
