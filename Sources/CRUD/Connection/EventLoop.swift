import Foundation
#if canImport(Glibc)
import CEventPoll
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wakes the tasks that wait for a server connection's socket: one thread of the library's waits
/// in the kernel (epoll on Linux, kqueue on Darwin) for every socket a task waits on, and resumes
/// each task when its socket is ready. A task waiting for a server's answer this way holds no
/// thread; the one thread serves every connection of every database. It runs while a database
/// uses it (`CRUDEventLoopUse`), from the database's start to its shutdown.
///
/// For drivers: out of the user documentation.
///
/// `@unchecked Sendable`: `waiting`, `running`, `users`, `timedWaits` and `timers` are guarded by
/// `lock` (so each access is exclusive, and skips Swift's dynamic check); a poller's descriptors are
/// the kernel's, safe from any thread, and closed only by its own thread as it ends.
@_spi(CRUDDriver) public final class CRUDEventLoop: @unchecked Sendable {
    /// What a task waits for on a socket.
    public enum Readiness: Sendable {
        /// Data to read (or the peer closed the connection).
        case readable
        /// Room to write.
        case writable
    }

    /// The loop every driver's connections share.
    public static let shared = CRUDEventLoop()

    /// Who waits on a socket: a task, resumed once; a task waiting at most until a timer (its
    /// `serial`) fires, resumed with whether the socket was ready; or a handler, called on the loop's
    /// thread. A task's continuation is resumed by whoever takes it out of `waiting`, under `lock`,
    /// so once: unchecked, since a checked one allocates a record at every wait, which is every
    /// awaited answer's.
    private enum Waiter {
        case task(UnsafeContinuation<Void, any Error>)
        case timedTask(UnsafeContinuation<Bool, any Error>, serial: Int)
        case handler(any CRUDSocketHandler)
    }

    /// A running loop's kernel poller, and the pipe whose read end it watches to know it must end.
    private struct Poller {
        let descriptor: Int32
        let stopReader: Int32
        let stopWriter: Int32
    }

    private let lock = NSLock()
    /// Who waits on each socket: a connection is used by one task at a time, or read for several
    /// by one handler, so a socket has at most one.
    @exclusivity(unchecked) private var waiting: [Int32: Waiter] = [:]
    /// The running loop; `nil` while no database uses it.
    @exclusivity(unchecked) private var running: Poller?
    /// The databases using the loop.
    @exclusivity(unchecked) private var users = 0
    /// Tells timed waits apart, for their timers.
    @exclusivity(unchecked) private var timedWaits = 0
    /// The timers of timed waits that wait, by serial: cancelled when the socket is ready first.
    @exclusivity(unchecked) private var timers: [Int: CRUDTimer] = [:]

    private init() {}

    /// A database starts using the loop: its thread starts unless it runs.
    func retain() {
        lock.withLock {
            users += 1
            if running == nil { running = start() }
        }
    }

    /// A database is done with the loop: its thread ends with the last one.
    func release() {
        lock.withLock {
            users -= 1
            guard users == 0, let poller = running else { return }
            running = nil
            var stop: UInt8 = 1
            _ = write(poller.stopWriter, &stop, 1)
        }
    }

    /// A new poller watching the stop pipe, and its thread; `nil` when the kernel refuses one (waits
    /// then fail, saying why).
    private func start() -> Poller? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        // Not handed to the processes a program starts (a database server it spawns, say).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        #if canImport(Glibc)
        let descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        #else
        let descriptor = kqueue()
        #endif
        let poller = Poller(descriptor: descriptor, stopReader: ends[0], stopWriter: ends[1])
        guard descriptor >= 0, watch(ends[0], for: [.readable], on: descriptor, once: false) == nil else {
            for open in [descriptor, ends[0], ends[1]] where open >= 0 { close(open) }
            return nil
        }
        let thread = Thread { [self] in run(poller) }
        thread.name = "CRUD.events"
        thread.start()
        return poller
    }

    /// Suspends the calling task until `socket` is ready for `readiness`, or has failed (then the
    /// client library's next call on it reports what went wrong). A cancelled task keeps waiting:
    /// the driver stops a statement by asking the server to cancel it, which answers on the
    /// socket, so a connection is never left with an answer half read.
    /// - Throws: `CRUDSQLExeError` when the kernel refuses to watch the socket.
    public nonisolated(nonsending) func wait(until readiness: Readiness, on socket: Int32) async throws {
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
            guard let failure = arm(socket, for: [readiness], .task(continuation)) else { return }
            if case .task(let waiting)? = lock.withLock({ waiting.removeValue(forKey: socket) }) {
                waiting.resume(throwing: failure)
            }
        }
    }

    /// `wait(until:on:)` for at most `timeout`: whether the socket became ready (or failed) in time.
    /// For what the client library does not time itself while it runs without blocking (a connect):
    /// it is woken only when the socket is ready, which the kernel confirms, since a connect's next
    /// step takes a wake-up for its socket's readiness (a report meant for an earlier socket of the
    /// same number, another connection's closed since, may wake a wait on it).
    /// - Throws: `CRUDSQLExeError` when the kernel refuses to watch the socket.
    public nonisolated(nonsending) func wait(until readiness: Readiness, on socket: Int32, timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - .now
            guard left > .zero, try await waitOnce(until: readiness, on: socket, timeout: left) else { return false }
            if Self.isReady(socket, for: readiness) { return true }
        }
    }

    /// Whether `socket` is ready for `readiness` now, or has failed, as `poll` says without waiting.
    private static func isReady(_ socket: Int32, for readiness: Readiness) -> Bool {
        var watched = pollfd(fd: socket, events: Int16(readiness == .readable ? POLLIN : POLLOUT), revents: 0)
        return poll(&watched, 1, 0) != 0
    }

    /// One wait of `wait(until:on:timeout:)`, which a report for the socket's number ends.
    private nonisolated(nonsending) func waitOnce(until readiness: Readiness, on socket: Int32, timeout: Duration) async throws -> Bool {
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Bool, any Error>) in
            let serial = lock.withLock {
                timedWaits &+= 1
                return timedWaits
            }
            if let failure = arm(socket, for: [readiness], .timedTask(continuation, serial: serial)) {
                if case .timedTask(let waiting, _)? = lock.withLock({ waiting.removeValue(forKey: socket) }) {
                    waiting.resume(throwing: failure)
                }
                return
            }
            let timer = CRUDTimers.after(timeout) { [self] in
                // Still waiting, this same wait: the socket was not ready in time. The kernel's report,
                // should it come, then finds no waiter, or the socket's next one (re-armed).
                let expired: UnsafeContinuation<Bool, any Error>? = lock.withLock {
                    timers.removeValue(forKey: serial)
                    guard case .timedTask(let expiring, serial: serial)? = waiting[socket] else { return nil }
                    waiting.removeValue(forKey: socket)
                    return expiring
                }
                expired?.resume(returning: false)
            }
            // Kept for the loop to cancel, unless the socket was ready already.
            let ended: Bool = lock.withLock {
                guard case .timedTask(_, serial: serial)? = waiting[socket] else { return true }
                timers[serial] = timer
                return false
            }
            if ended { timer.cancel() }
        }
    }

    /// Calls `handler` on the loop's thread once `socket` is ready for one of `readiness`, or has
    /// failed; once: the handler watches again when it wants more.
    /// - Throws: `CRUDSQLExeError` when the kernel refuses to watch the socket.
    public func watch(_ socket: Int32, for readiness: [Readiness], handler: any CRUDSocketHandler) throws {
        guard let failure = arm(socket, for: readiness, .handler(handler)) else { return }
        lock.withLock { _ = waiting.removeValue(forKey: socket) }
        throw failure
    }

    /// Registers `waiter` for `socket` and asks the kernel to report it once; the error when it refuses.
    private func arm(_ socket: Int32, for readiness: [Readiness], _ waiter: Waiter) -> CRUDSQLExeError? {
        let poller = lock.withLock {
            waiting[socket] = waiter
            return running
        }
        guard let failure = poller.map({ watch(socket, for: readiness, on: $0.descriptor, once: true) })
            ?? "no event loop runs (the kernel refused one, or every database using it was shut down)" else { return nil }
        return CRUDSQLExeError("cannot wait for the connection's socket \(socket): \(failure)", kind: .connectionLost)
    }

    /// Asks the kernel to report `socket` to `poller` when it is ready for `readiness`: `once`, or
    /// every time; the error's text when it refuses.
    private func watch(_ socket: Int32, for readiness: [Readiness], on poller: Int32, once: Bool) -> String? {
        #if canImport(Glibc)
        var wanted = once ? EPOLLONESHOT.rawValue : 0
        for kind in readiness { wanted |= kind == .readable ? EPOLLIN.rawValue : EPOLLOUT.rawValue }
        var event = epoll_event(events: wanted, data: epoll_data_t(fd: socket))
        // A socket reported once stays registered, disarmed: re-armed with MOD. A socket closed since
        // (a reconnect, whose new socket may have the same number) is gone from the set: ADD.
        if epoll_ctl(poller, Int32(EPOLL_CTL_MOD), socket, &event) == 0 { return nil }
        guard errno == ENOENT, epoll_ctl(poller, Int32(EPOLL_CTL_ADD), socket, &event) == 0 else { return String(cString: strerror(errno)) }
        return nil
        #else
        var events = readiness.map {
            kevent(ident: UInt(socket), filter: Int16($0 == .readable ? EVFILT_READ : EVFILT_WRITE),
                   flags: UInt16(EV_ADD | (once ? EV_ONESHOT : 0)), fflags: 0, data: 0, udata: nil)
        }
        guard kevent(poller, &events, Int32(events.count), nil, 0, nil) == 0 else { return String(cString: strerror(errno)) }
        return nil
        #endif
    }

    /// The loop's thread: resumes the task waiting on each socket the kernel reports ready, until
    /// the stop pipe is.
    private func run(_ poller: Poller) {
        let capacity = 64
        #if canImport(Glibc)
        var events = [epoll_event](repeating: epoll_event(), count: capacity)
        #else
        var events = [kevent](repeating: kevent(), count: capacity)
        #endif
        while true {
            #if canImport(Glibc)
            let count = epoll_wait(poller.descriptor, &events, Int32(capacity), -1)
            #else
            let count = kevent(poller.descriptor, nil, 0, &events, Int32(capacity), nil)
            #endif
            for index in 0 ..< max(0, Int(count)) {
                #if canImport(Glibc)
                let socket = events[index].data.fd
                #else
                let socket = Int32(events[index].ident)
                #endif
                if socket == poller.stopReader {
                    for open in [poller.descriptor, poller.stopReader, poller.stopWriter] { close(open) }
                    return
                }
                switch lock.withLock({ waiting.removeValue(forKey: socket) }) {
                case .task(let task)?: task.resume()
                case .timedTask(let task, let serial)?:
                    lock.withLock { timers.removeValue(forKey: serial) }?.cancel()
                    task.resume(returning: true)
                case .handler(let handler)?: handler.socketIsReady()
                case nil: break
                }
            }
        }
    }
}

/// What a driver has the event loop call when a socket it watches is ready: a server connection
/// that several sessions' statements share, read on the loop's thread for all of them.
///
/// For drivers: out of the user documentation.
@_spi(CRUDDriver) public protocol CRUDSocketHandler: AnyObject, Sendable {
    /// The socket is ready (or failed); called on the event loop's thread, which it must not block
    /// for long.
    func socketIsReady()
}

/// A database's use of the event loop, from its start to its shutdown, or to its end when it is
/// never shut down.
///
/// `@unchecked Sendable`: `ended` is guarded by `lock`.
final class CRUDEventLoopUse: @unchecked Sendable {
    private let lock = NSLock()
    private var ended = false

    init() {
        CRUDEventLoop.shared.retain()
    }

    /// The database is done with the loop; once, whoever calls it first.
    func end() {
        let first = lock.withLock {
            defer { ended = true }
            return !ended
        }
        if first { CRUDEventLoop.shared.release() }
    }

    deinit {
        end()
    }
}
