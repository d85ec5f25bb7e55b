import CRUD
import Foundation
import Testing

private struct Abort: Error {}

/// One `Database` shared by tasks and threads, on every backend.
@Suite("concurrency")
struct ConcurrencyTests {
    @Test("8 writer tasks × 10,000 rows in transactions of 100, 2 readers counting: nothing lost, counts never go down, every transaction whole",
          .timeLimit(.minutes(3)), arguments: Backend.all)
    func writersAndReaders(_ backend: Backend) async throws { try await writersAndReaders(backend.open()) }

    func writersAndReaders<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self)
        let violations = Collector<String>()
        let writing = RunningFlag()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0 ..< 8 {
                group.addTask {
                    for transaction in 0 ..< 100 {
                        let first = writer * 10_000 + transaction * 100
                        try await db.transaction { tx in
                            try await tx.table(Course.self).insert((first ..< first + 100).map { Course(id: $0, title: "w\(writer)") })
                        }
                    }
                }
            }
            for _ in 0 ..< 2 {
                group.addTask {
                    var last = 0
                    repeat {
                        let count = try await db.table(Course.self).count()
                        if count < last { violations.append("count went down from \(last) to \(count)") }
                        if count % 100 != 0 { violations.append("count \(count) is not whole transactions") }
                        last = count
                    } while writing.isSet
                }
            }
            // The writers are the first 8 tasks; when they are done, tell the readers.
            var finished = 0
            while finished < 8, try await group.next() != nil { finished += 1 }
            writing.clear()
            try await group.waitForAll()
        }
        #expect(violations.items.isEmpty, "\(violations.items.prefix(5))")
        #expect(try await db.table(Course.self).count() == 80_000)
        let ids = try await db.table(Course.self).select().map(\.id)
        let written: [Int] = (0 ..< 8).flatMap { (writer: Int) -> [Int] in (0 ..< 10_000).map { writer * 10_000 + $0 } }
        #expect(Set(ids) == Set(written))
    }

    @Test("tasks preferring CRUDThreads run their calls inline: writers in transactions, readers, streams, all consistent",
          .timeLimit(.minutes(2)), arguments: Backend.all)
    func onLibraryThreads(_ backend: Backend) async throws { try await onLibraryThreads(backend.open()) }

    func onLibraryThreads<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self)
        let violations = Collector<String>()
        // More writers than CRUDThreads has threads: waiting for the writer must suspend, not block.
        let writers = 24
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0 ..< writers {
                group.addTask(executorPreference: CRUDThreads.shared) {
                    for transaction in 0 ..< 10 {
                        let first = writer * 1_000 + transaction * 10
                        try await db.transaction { tx in
                            try await tx.table(Course.self).insert((first ..< first + 10).map { Course(id: $0, title: "w") })
                            if try await tx.table(Course.self).where(\Course.id >= first && \Course.id < first + 10).count() != 10 {
                                violations.append("a transaction does not see its own rows")
                            }
                        }
                    }
                }
            }
            group.addTask(executorPreference: CRUDThreads.shared) {
                var last = 0
                for _ in 0 ..< 50 {
                    var streamed = 0
                    for try await _ in db.table(Course.self).select() { streamed += 1 }
                    if streamed < last || streamed % 10 != 0 { violations.append("streamed \(streamed) rows after \(last)") }
                    last = streamed
                }
            }
            try await group.waitForAll()
        }
        #expect(violations.items.isEmpty, "\(violations.items.prefix(5))")
        #expect(try await db.table(Course.self).count() == writers * 100)
    }

    @Test("a read during a long write transaction returns the old snapshot without waiting for it", arguments: Backend.all)
    func snapshotRead(_ backend: Backend) throws { try snapshotRead(backend.open()) }

    func snapshotRead<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        try db.table(Course.self).insert(Course(id: 1, title: "committed"))
        let started = DispatchSemaphore(value: 0)
        let writer = Thread {
            try? db.transaction {
                try db.table(Course.self).insert((2 ... 100).map { Course(id: $0, title: "pending") })
                started.signal()
                Thread.sleep(forTimeInterval: 2.5)
            }
        }
        writer.start()
        started.wait()
        let clock = ContinuousClock()
        var seen = -1
        let elapsed = try clock.measure { seen = try db.table(Course.self).count() }
        #expect(seen == 1, "the reader sees the last committed state, not the open transaction's rows")
        #expect(elapsed < .milliseconds(1_500), "the read did not wait for the 2.5 s write transaction: \(elapsed)")
        var titles: [String] = []
        try db.table(Course.self).forEach { titles.append($0.title) }
        #expect(titles == ["committed"])
        while !writer.isFinished { usleep(20_000) }
        #expect(try db.table(Course.self).count() == 100)
    }

    @Test("other tasks' work never lands inside a transaction, and a failed transaction keeps none of its own", arguments: Backend.all)
    func isolation(_ backend: Backend) async throws { try await isolation(backend.open()) }

    func isolation<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self)
        async let outsider: Void = {
            try await Task.sleep(for: .milliseconds(100))
            try await db.table(Course.self).insert(Course(id: 2, title: "outside"))
        }()
        await #expect(throws: Abort.self) {
            try await db.transaction { tx in
                try await tx.table(Course.self).insert(Course(id: 1, title: "inside"))
                try await Task.sleep(for: .milliseconds(400))
                #expect(try await tx.table(Course.self).where(\Course.id == 1).count() == 1, "the body sees its own work")
                throw Abort()
            }
        }
        try await outsider
        #expect(try await db.table(Course.self).select().map(\.id) == [2])
    }

    @Test("async transactions nest as savepoints; the body's calls of db run inside too", arguments: Backend.all)
    func nestedAsync(_ backend: Backend) async throws { try await nestedAsync(backend.open()) }

    func nestedAsync<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self)
        let value = try await db.transaction { tx in
            try await tx.table(Course.self).insert(Course(id: 1, title: "outer"))
            await #expect(throws: Abort.self) {
                try await tx.transaction { inner in
                    try await inner.table(Course.self).insert(Course(id: 2, title: "inner"))
                    throw Abort()
                }
            }
            try await db.table(Course.self).insert(Course(id: 3, title: "through db"))
            return try await db.table(Course.self).count()
        }
        #expect(value == 2)
        #expect(try await db.table(Course.self).order(by: \.id).select().map(\.id) == [1, 3])
        var streamed: [Int] = []
        for try await course in db.table(Course.self).order(by: \.id).select() { streamed.append(course.id) }
        #expect(streamed == [1, 3])
    }

    @Test("a transaction's child tasks share its connection in turn: 16 writing and reading at once commit together or roll back together",
          arguments: Backend.all)
    func childTasksShareTheTransaction(_ backend: Backend) async throws { try await childTasksShareTheTransaction(backend.open()) }

    func childTasksShareTheTransaction<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self, policy: .dropTable)
        let inserted = Collector<Int>()
        let observer = db.observe(.insert, on: Course.self) { inserted.append($0) }
        let counted = try await db.transaction { tx in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in 1 ... 16 {
                    group.addTask {
                        try await tx.table(Course.self).insert(Course(id: id, title: "course \(id)"))
                        // Each child reads its own write, inside the transaction.
                        let title = try await tx.table(Course.self).where(\Course.id == id).first()?.title
                        guard title == "course \(id)" else { throw CRUDSQLGenError("child \(id) read \(title as Any)") }
                        _ = try await db.table(Course.self).count()
                    }
                }
                try await group.waitForAll()
            }
            // Nothing is published before the commit; a page reads the transaction's own rows.
            #expect(inserted.items.isEmpty, "\(inserted.items)")
            #expect(try await tx.table(Course.self).page(2, size: 5) == CRUDPage(items: (6 ... 10).map { Course(id: $0, title: "course \($0)") },
                                                                                total: 16, number: 2, size: 5))
            return try await tx.table(Course.self).count()
        }
        #expect(counted == 16)
        #expect(try await db.table(Course.self).order(by: \.id).select().map(\.id) == Array(1 ... 16))
        #expect(await inserted.wait { $0.count >= 16 }, "\(inserted.items)")
        #expect(inserted.items.sorted() == Array(1 ... 16))

        await #expect(throws: Abort.self) {
            try await db.transaction { tx in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for id in 17 ... 32 { group.addTask { try await tx.table(Course.self).insert(Course(id: id, title: "rolled back")) } }
                    try await group.waitForAll()
                }
                #expect(try await tx.table(Course.self).count() == 32)
                throw Abort()
            }
        }
        #expect(try await db.table(Course.self).count() == 16)
        #expect(inserted.items.count == 16, "\(inserted.items)")
        observer.cancel()
        try await db.shutdown()
    }

    @Test("one Database shared by Task.detached and DispatchQueue closures: Sendable, correct counts", arguments: Backend.all)
    func sharedAcrossThreads(_ backend: Backend) async throws { try await sharedAcrossThreads(backend.open()) }

    func sharedAcrossThreads<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self)
        let detached = (0 ..< 4).map { worker in
            // Async calls: a detached task blocked on the synchronous ones would hold a thread of
            // Swift's cooperative pool (one per core) that the suites running beside it need.
            Task.detached {
                for row in 0 ..< 50 { try await db.table(Course.self).insert(Course(id: worker * 100 + row, title: "task")) }
                return try await db.table(Course.self).count()
            }
        }
        let group = DispatchGroup()
        let violations = Collector<String>()
        for worker in 4 ..< 8 {
            DispatchQueue.global().async(group: group) {
                do {
                    for row in 0 ..< 50 { try db.table(Course.self).insert(Course(id: worker * 100 + row, title: "queue")) }
                } catch {
                    violations.append("\(error)")
                }
            }
        }
        for task in detached { #expect(try await task.value >= 50) }
        group.wait()
        #expect(violations.items.isEmpty, "\(violations.items)")
        #expect(try await db.table(Course.self).count() == 400)
    }

    @Test("a streamed result can be left early: its connection goes back", arguments: Backend.all)
    func streamLeftEarly(_ backend: Backend) async throws { try await streamLeftEarly(backend.open()) }

    func streamLeftEarly<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self)
        try await db.table(Course.self).insert((1 ... 1_000).map { Course(id: $0, title: "c\($0)") })
        for _ in 0 ..< 20 {
            for try await course in db.table(Course.self).order(by: \.id).select() where course.id == 300 { break }
        }
        #expect(try await db.table(Course.self).count() == 1_000, "no connection was kept by the abandoned loops")
        try await db.transaction { tx in
            var seen = 0
            for try await _ in tx.table(Course.self).select() { seen += 1 }
            #expect(seen == 1_000)
        }
    }

    @Test("transaction modes each backend has, and a clear error for those it lacks", arguments: Backend.all)
    func modes(_ backend: Backend) throws { try modes(backend.open(), backend) }

    @Test("async transactions in every mode the backend has: a read-only one refuses writes (MySQL's second statement, START TRANSACTION READ ONLY, ran)",
          arguments: Backend.all)
    func asyncModes(_ backend: Backend) async throws { try await asyncModes(backend.open(), backend) }

    func asyncModes<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self, policy: .dropTable)
        let supported: [TransactionMode] = backend == .sqlite
            ? [.default, .deferred, .immediate, .exclusive, .isolation(.serializable)]
            : [.default, .isolation(.readCommitted), .isolation(.repeatableRead), .isolation(.serializable)]
        for (offset, mode) in supported.enumerated() {
            try await db.transaction(mode) { tx in try await tx.table(Course.self).insert(Course(id: offset, title: "\(mode)")) }
        }
        #expect(try await db.table(Course.self).count() == supported.count)
        if backend != .sqlite {
            let readOnly = await #expect(throws: CRUDSQLExeError.self) {
                try await db.transaction(.isolation(.serializable, readOnly: true)) { tx in
                    try await tx.table(Course.self).insert(Course(id: 99, title: "x"))
                }
            }
            #expect(readOnly?.code == (backend == .postgres ? "25006" : "1792"), "read_only_sql_transaction")
        }
        #expect(try await db.table(Course.self).count() == supported.count)
        try await db.shutdown()
    }

    func modes<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        let supported: [TransactionMode] = backend == .sqlite
            ? [.default, .deferred, .immediate, .exclusive, .isolation(.serializable)]
            : [.default, .isolation(.readCommitted), .isolation(.repeatableRead), .isolation(.serializable)]
        for (offset, mode) in supported.enumerated() {
            try db.transaction(mode) { try db.table(Course.self).insert(Course(id: offset, title: "\(mode)")) }
        }
        #expect(try db.table(Course.self).count() == supported.count)
        let unsupported: TransactionMode = backend == .sqlite ? .isolation(.readCommitted) : .exclusive
        let error = #expect(throws: CRUDSQLGenError.self) { try db.transaction(unsupported) {} }
        #expect(error?.msg.contains(backend.databaseName) == true)
        if backend != .sqlite {
            let readOnly = #expect(throws: CRUDSQLExeError.self) {
                try db.transaction(.isolation(.serializable, readOnly: true)) { try db.table(Course.self).insert(Course(id: 99, title: "x")) }
            }
            #expect(readOnly?.code == (backend == .postgres ? "25006" : "1792"), "read_only_sql_transaction")
        }
        #expect(try db.table(Course.self).count() == supported.count)
    }

    @Test("a child has a connection of its own with explicit transactions; raw BEGIN is refused", arguments: Backend.all)
    func children(_ backend: Backend) throws { try children(backend.open()) }

    func children<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        let child = try db.createChild()
        try child.beginTransaction()
        try child.table(Course.self).insert(Course(id: 1, title: "rolled back"))
        try child.rollbackTransaction()
        try child.beginTransaction()
        try child.table(Course.self).insert(Course(id: 2, title: "kept"))
        try child.beginTransaction()
        try child.table(Course.self).insert(Course(id: 3, title: "inner, rolled back"))
        try child.rollbackTransaction()
        try child.commitTransaction()
        #expect(try db.table(Course.self).select().map(\.id) == [2], "the parent sees what the child committed")
        #expect(throws: CRUDSQLGenError.self) { try child.commitTransaction() }
        #expect(throws: CRUDSQLGenError.self) { try child.rollbackTransaction() }
        let pooled = #expect(throws: CRUDSQLGenError.self) { try db.beginTransaction() }
        #expect(pooled?.msg.contains("createChild") == true)

        let raw = #expect(throws: CRUDSQLExeError.self) { try db.sql("BEGIN") }
        #expect(raw?.msg.contains("opened a transaction that CRUD does not track") == true)
        #expect(throws: CRUDSQLExeError.self) { try child.sql("BEGIN") }
        try db.transaction { try db.table(Course.self).insert(Course(id: 4, title: "after raw BEGIN")) }
        try child.transaction { try child.table(Course.self).insert(Course(id: 5, title: "child after raw BEGIN")) }
        #expect(try db.table(Course.self).order(by: \.id).select().map(\.id) == [2, 4, 5])
    }
}
