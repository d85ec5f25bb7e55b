import Foundation

/// Threads of the library's that tasks can run on, so that their database calls need no hop.
///
/// An `async` operation normally waits for a connection, hops to the connection's queue for the
/// blocking C calls, and hops back: two thread switches, which from Swift's default executor cost
/// 20 to 22 µs a call, four times a raw autocommit point lookup in SQLite and ten times one inside
/// a transaction (on these threads, about 2 µs).
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
enum CRUDThreadMarker {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static func mark() {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
    }

    static var isMarked: Bool {
        pthread_getspecific(key) != nil
    }
}
