@testable import CRUD
import Foundation
import Testing

/// The lock a transaction's callers share: threads hold it recursively, tasks across suspensions,
/// one holder at a time, and neither kind starves the other.
///
/// Their tasks run on `CRUDThreads`: in the whole suite, tests blocking Swift's cooperative threads
/// (one per core here; servers starting, synchronous calls) have kept tasks there from running for
/// a minute, longer than these tests' time limits, which are there to catch a gate that hangs.
@Suite("session gate")
struct SessionGateTests {
    /// Counts holders at once; every holder checks it is alone.
    final class Occupancy: @unchecked Sendable {
        // Guarded by `lock`.
        private let lock = NSLock()
        private var inside = 0
        private var mostInside = 0
        private var entries = 0

        /// The most holders seen at once.
        var most: Int { lock.withLock { mostInside } }
        /// How many holds there were.
        var entered: Int { lock.withLock { entries } }

        func enter() {
            lock.withLock {
                inside += 1
                entries += 1
                mostInside = max(mostInside, inside)
            }
        }

        func leave() {
            lock.withLock { inside -= 1 }
        }
    }

    @Test("threads and tasks holding it at once never overlap, and a thread takes it again while it holds it", .timeLimit(.minutes(1)))
    func oneHolderAtATime() async throws {
        let gate = CRUDSessionGate()
        let occupancy = Occupancy()
        let threads = (0 ..< 4).map { _ in
            Thread {
                for _ in 0 ..< 200 {
                    gate.lock()
                    gate.lock()
                    occupancy.enter()
                    usleep(20)
                    occupancy.leave()
                    gate.unlock()
                    gate.unlock()
                }
            }
        }
        threads.forEach { $0.start() }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0 ..< 8 {
                group.addTask(executorPreference: CRUDThreads.shared) {
                    for _ in 0 ..< 100 {
                        await gate.acquire()
                        occupancy.enter()
                        // Held across a suspension, as a task awaiting the server holds it; given
                        // back also when the time limit cancels the test, which then ends.
                        try? await Task.sleep(for: .microseconds(50))
                        occupancy.leave()
                        gate.release()
                    }
                }
            }
        }
        while threads.contains(where: { !$0.isFinished }) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(occupancy.entered == 4 * 200 + 8 * 100)
        #expect(occupancy.most == 1)
    }

    @Test("a thread holding two gates takes either again and gives them back in any order")
    func twoGatesOnOneThread() async throws {
        // On one thread throughout: a thread's holds are the thread's.
        let seen = try await Self.onThread {
            let first = CRUDSessionGate(), second = CRUDSessionGate()
            var seen: [Bool] = []
            first.lock()
            second.lock()
            first.lock()
            first.unlock()
            seen.append(Self.onOtherThread { first.tryLock() })
            first.unlock()
            seen.append(Self.onOtherThread {
                defer { first.unlock() }
                return first.tryLock()
            })
            seen.append(Self.onOtherThread { second.tryLock() })
            seen.append(second.tryLock())
            second.unlock()
            second.unlock()
            seen.append(Self.onOtherThread {
                defer { second.unlock() }
                return second.tryLock()
            })
            return seen
        }
        // Still held once; free; the other still held; its holder takes it again; free.
        #expect(seen == [false, true, false, true, true])
    }

    /// What `body` returns on a thread of its own, awaited.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    /// What `body` returns on a thread of its own, waited for by the calling thread.
    static func onOtherThread<T>(_ body: @escaping () -> T) -> T {
        // Written by the thread before it signals, read after the wait.
        nonisolated(unsafe) var result: T?
        nonisolated(unsafe) let body = body
        let done = DispatchSemaphore(value: 0)
        Thread {
            result = body()
            done.signal()
        }.start()
        done.wait()
        return result!
    }

    @Test("a task waiting for it gets it although a thread takes it again and again, and a thread although tasks do", .timeLimit(.minutes(1)))
    func neitherKindStarves() async throws {
        let gate = CRUDSessionGate()
        let stop = Occupancy()
        // A thread that takes the gate again at once each time it gives it back.
        let hammering = Thread {
            while stop.entered == 0 {
                gate.lock()
                usleep(100)
                gate.unlock()
            }
        }
        hammering.start()
        try await Task.sleep(for: .milliseconds(20))
        let clock = ContinuousClock()
        let started = clock.now
        await withTaskExecutorPreference(CRUDThreads.shared) {
            await gate.acquire()
            gate.release()
        }
        // Generous: in a busy test run the task, let in, waits for a thread to run on. A gate that
        // starved it would never let it in, and the time limit would end the test.
        #expect(clock.now - started < .seconds(20))
        stop.enter()
        while !hammering.isFinished { try await Task.sleep(for: .milliseconds(5)) }

        // Tasks taking it in turn, one always waiting: a thread gets it between two of them.
        let done = Occupancy()
        let tasks = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0 ..< 4 {
                    group.addTask(executorPreference: CRUDThreads.shared) {
                        while done.entered == 0 {
                            await gate.acquire()
                            try? await Task.sleep(for: .microseconds(100))
                            gate.release()
                        }
                    }
                }
            }
        }
        try await Task.sleep(for: .milliseconds(20))
        let threadStarted = clock.now
        let taking = Thread {
            gate.lock()
            gate.unlock()
        }
        taking.start()
        while !taking.isFinished { try await Task.sleep(for: .milliseconds(1)) }
        #expect(clock.now - threadStarted < .seconds(20))
        done.enter()
        await tasks.value
        #expect(gate.tryLock())
        gate.unlock()
    }
}
