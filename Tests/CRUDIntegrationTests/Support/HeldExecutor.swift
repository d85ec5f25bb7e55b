import Foundation

/// A task executor with one thread, which a test can hold: after `hold()` the thread runs no job
/// until `release()`, so the tasks preferring it cannot run again meanwhile. It stands for a Swift
/// cooperative pool kept busy by an app's blocking work.
///
/// `@unchecked Sendable`: `jobs` and `held` are guarded by `condition`.
@available(macOS 15.0, *)
final class HeldExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var held = false
    private var stopped = false

    init() {
        let thread = Thread { [self] in work() }
        thread.name = "HeldExecutor"
        thread.start()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty || held, !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
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

    /// Runs no job after the one running now, until `release()`.
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

    /// Ends the thread once it has no job left: call it when the tasks preferring it have ended.
    func stop() {
        condition.withLock {
            held = false
            stopped = true
            condition.broadcast()
        }
    }
}
