import Foundation

/// A task executor with threads of a test's own, which a test can hold: after `hold()` no thread
/// starts a job until `release()`, so the tasks preferring it cannot run again meanwhile (with one
/// thread it stands for a Swift cooperative pool kept busy by an app's blocking work). Unlike
/// `CRUDThreads`, its threads are not the library's: an async call there waits for the server
/// without a thread where the driver can, as on Swift's own pool.
///
/// `@unchecked Sendable`: `jobs`, `head`, `held` and `stopped` are guarded by `condition`.
@available(macOS 15.0, *)
final class TestThreads: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var held = false
    private var stopped = false

    /// Starts `count` threads named `name`.
    init(count: Int = 1, name: String) {
        for index in 0 ..< max(1, count) {
            let thread = Thread { [self] in work() }
            thread.name = count == 1 ? name : "\(name).\(index)"
            thread.start()
        }
    }

    private func work() {
        while true {
            condition.lock()
            while head == jobs.count || held, !stopped { condition.wait() }
            if head == jobs.count {
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Starts no job after the ones running now, until `release()`.
    func hold() {
        condition.withLock { held = true }
    }

    /// Runs the jobs again.
    func release() {
        condition.withLock {
            held = false
            condition.broadcast()
        }
    }

    /// Ends the threads once no job is left: call it when the tasks preferring them have ended.
    func stop() {
        condition.withLock {
            held = false
            stopped = true
            condition.broadcast()
        }
    }
}
