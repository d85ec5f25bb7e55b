import CRUD
import Foundation

/// The load the failover tests put on a cluster: writers, each writing ids of its own (writer `w`'s
/// `n`th write is id `(w + 1) * 1_000_000 + n`), and readers, calling until stopped; what was
/// acknowledged, what failed (by `CRUDSQLExeError.Kind`), and how long the longest call took.
final class FailoverLoad: Sendable {
    let clock = ContinuousClock()
    let acknowledged = Collector<Int>()
    let failures = Collector<String>()
    let longest = Collector<Duration>()
    let reads = Collector<Int>()
    /// When the failure began (a node killed, a standby promoted), once `mark()` says so.
    let marked = Collector<ContinuousClock.Instant>()
    /// Per writer, when a write it began after the mark was acknowledged.
    let recovered = Collector<(writer: Int, at: ContinuousClock.Instant)>()
    private let stopping = Collector<Bool>()
    private let tasks = Collector<Task<Void, Never>>()

    /// Starts `writers` tasks calling `write` with their ids, and `readers` tasks calling `read`,
    /// which returns a number to keep; a failed call pauses 20 ms.
    init(writers: Int, readers: Int = 0, write: @escaping @Sendable (Int, Int) async throws -> Void,
         read: @escaping @Sendable () async throws -> Int = { 0 }) {
        for writer in 0 ..< writers {
            tasks.append(Task {
                var next = 0
                while self.stopping.items.isEmpty {
                    next += 1
                    let id = (writer + 1) * 1_000_000 + next
                    let began = self.clock.now
                    if await self.call({ try await write(writer, id) }) {
                        self.acknowledged.append(id)
                        if let mark = self.marked.items.first, began > mark { self.recovered.append((writer, self.clock.now)) }
                    }
                }
            })
        }
        for _ in 0 ..< readers {
            tasks.append(Task {
                while self.stopping.items.isEmpty {
                    _ = await self.call { self.reads.append(try await read()) }
                }
            })
        }
    }

    /// The failure begins now.
    func mark() {
        marked.append(clock.now)
    }

    /// Waits until each of `writers` writers has had `writes` writes begun after the mark
    /// acknowledged; whether they had within `timeout`.
    func recovered(writers: Int, writes: Int, timeout: Duration) async -> Bool {
        await recovered.wait(timeout: timeout) { done in
            (0 ..< writers).allSatisfy { writer in done.filter { $0.writer == writer }.count >= writes }
        }
    }

    /// Stops every task and waits for them to end.
    func stop() async {
        stopping.append(true)
        for task in tasks.items { await task.value }
    }

    /// The failures' kinds (with the text of kinds other than a lost connection or a serialization
    /// failure), and anything else thrown as its type and text.
    var failureKinds: Set<String> { Set(failures.items) }

    /// Runs one call; whether it succeeded.
    private func call(_ body: () async throws -> Void) async -> Bool {
        let began = clock.now
        defer { longest.append(clock.now - began) }
        do {
            try await body()
            return true
        } catch let error as CRUDSQLExeError {
            // The kinds a failover may cause, by name; any other with its text, to say what it was.
            let expected = error.kind == .connectionLost || error.kind == .serializationFailure
            failures.append(expected ? "\(error.kind)" : "\(error.kind): \(error)")
        } catch {
            failures.append("\(type(of: error)): \(error)")
        }
        try? await Task.sleep(for: .milliseconds(20))
        return false
    }
}
