import Foundation

/// Threads of the library's that tasks can run on, so that their database calls need no hop.
///
/// On PostgreSQL and MySQL an `async` read, write or transaction waits for the server in its task,
/// woken by the library's event thread; the other operations (upserts, streams, schema changes) wait
/// for a connection, hop to the connection's queue for the blocking C calls, and hop back: two thread
/// switches, which from Swift's default executor cost 20 to 22 µs a call, four times a raw
/// autocommit point lookup in SQLite and ten times one inside a transaction (on these threads,
/// about 2 µs). (SQLite's run on the caller's thread wherever a connection is free.) On these
/// threads every operation runs inline, blocking the thread, which costs least per call.
/// A task that does much database work can prefer these threads instead:
///
///     try await withTaskExecutorPreference(CRUDThreads.shared) { … }
///     group.addTask(executorPreference: CRUDThreads.shared) { … }
///
/// Its operations then run inline on the thread it already runs on; blocking there is what these
/// threads are for, and Swift's cooperative pool stays free. Waiting for a busy connection still
/// suspends the task rather than blocking a thread.
///
/// `@unchecked Sendable`: `jobs` and `head` are guarded by `condition`.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
public final class CRUDThreads: TaskExecutor, @unchecked Sendable {
    /// The shared threads: twice the processor count, at least four.
    public static let shared = CRUDThreads(count: max(4, 2 * ProcessInfo.processInfo.activeProcessorCount))

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0

    /// Starts `count` threads that run the jobs of tasks preferring this executor.
    public init(count: Int) {
        for index in 0 ..< max(1, count) {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "CRUD.thread.\(index)"
            thread.start()
        }
    }

    private func work() {
        CRUDThreadMarker.mark()
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            head += 1
            if head > 1_024, head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// Queues a job of a task that prefers these threads; the next free thread runs it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }
}

/// A thread-local mark on the library's threads, where blocking calls may run inline.
@usableFromInline
enum CRUDThreadMarker {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static func mark() {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
    }

    @usableFromInline
    static var isMarked: Bool {
        pthread_getspecific(key) != nil
    }
}

/// Async calls that run on the caller's own thread (`CRUDConnection.runsOnCallersThread`) do not
/// suspend, so a task calling in a loop (polling a count until other tasks' writes show) would keep
/// its thread of Swift's cooperative pool from every other task, and two such loops on a two-core
/// machine would let nothing else run. A thread that has run such calls for `turn` since it last
/// yielded yields before the next: other tasks get their turn every few milliseconds, and the
/// yield, which wakes another of the pool's threads, is paid once a turn rather than once a call.
enum CRUDCallerThread {
    /// How long a thread runs calls before it yields, in milliseconds of the system's coarse clock
    /// (which ticks every 1 to 4 ms, and costs no system call to read).
    static let turn = 2

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Before a call runs on this thread: yields it when its turn is over.
    @inline(__always)
    nonisolated(nonsending) static func takeTurn() async {
        var now = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        #else
        clock_gettime(CLOCK_MONOTONIC_RAW_APPROX, &now)
        #endif
        let milliseconds = Int(now.tv_sec) &* 1_000 &+ Int(now.tv_nsec) / 1_000_000
        guard milliseconds &- Int(bitPattern: pthread_getspecific(key)) >= turn else { return }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: milliseconds))
        await Task.yield()
    }
}
