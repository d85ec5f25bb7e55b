import CRUD
import CRUDSQLite
import Foundation
import Testing

@Suite("SQLite")
struct SQLiteTests {
    static func open(_ path: String, busyTimeout: Duration = .seconds(5)) throws -> Database<SQLiteDatabaseConfiguration> {
        Database(configuration: try Backend.sqliteConfiguration(at: path, busyTimeout: busyTimeout))
    }

    @Test("a file opens with WAL, foreign keys and a busy timeout; :memory: works too")
    func pragmas() throws {
        let db = try Self.open(Backend.temporaryFile("sqlite"), busyTimeout: .milliseconds(2_500))
        #expect(try db.sql("SELECT journal_mode AS text FROM pragma_journal_mode", TextValue.self).map(\.text) == ["wal"])
        #expect(try db.sql("SELECT foreign_keys AS value FROM pragma_foreign_keys", IntegerValue.self).map(\.value) == [1])
        #expect(try db.sql("PRAGMA busy_timeout", BusyTimeout.self).map(\.timeout) == [2_500])
        #expect(try db.sql("SELECT synchronous AS value FROM pragma_synchronous", IntegerValue.self).map(\.value) == [1])

        let memory = try Self.open(":memory:")
        try memory.create(Course.self)
        try memory.table(Course.self).insert(Course(id: 1, title: "in memory"))
        #expect(try memory.table(Course.self).first()?.title == "in memory")
    }

    @Test("a database locked by another connection fails after the busy timeout with a clear error")
    func locked() throws {
        let path = Backend.temporaryFile("sqlite")
        let holder = try Self.open(path)
        try holder.create(Course.self)
        let waiter = try Self.open(path, busyTimeout: .milliseconds(200))
        let started = Date()
        try holder.transaction {
            try holder.table(Course.self).insert(Course(id: 1, title: "held"))
            let error = #expect(throws: CRUDSQLExeError.self) { try waiter.table(Course.self).insert(Course(id: 2, title: "waiting")) }
            #expect(error?.msg.contains("database is locked") == true)
            #expect(error?.msg.contains(path) == true)
            #expect(error?.code == "5")
        }
        #expect(Date().timeIntervalSince(started) < 5)
        try waiter.table(Course.self).insert(Course(id: 2, title: "after"))
        #expect(try waiter.table(Course.self).count() == 2)
    }

    @Test("a read-only database reads, and refuses writes with an error naming it")
    func readOnly() throws {
        let path = Backend.temporaryFile("sqlite")
        let writer = try Self.open(path)
        try writer.create(Course.self)
        try writer.table(Course.self).insert(Course(id: 1, title: "stored"))
        let reader = try Self.open("file:\(path)?mode=ro")
        #expect(try reader.table(Course.self).first()?.title == "stored")
        let error = #expect(throws: CRUDSQLExeError.self) { try reader.table(Course.self).insert(Course(id: 2, title: "refused")) }
        #expect(error?.msg.contains("readonly") == true)
        #expect(error?.msg.contains(path) == true)
    }

    @Test("a missing directory is a clear error naming the path")
    func missingDirectory() throws {
        let path = "/nonexistent-\(UUID().uuidString)/data.sqlite"
        let error = #expect(throws: CRUDSQLExeError.self) { try SQLiteDatabaseConfiguration(path) }
        #expect(error?.msg == "cannot open SQLite database at \(path): unable to open database file")
    }

    @Test("a file that is not a database is a clear error naming it, at open")
    func corruptFile() throws {
        let path = Backend.temporaryFile("sqlite")
        try Data((0 ..< 8_192).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: CRUDSQLExeError.self) { try SQLiteDatabaseConfiguration(path) }
        #expect(error?.msg.contains("file is not a database") == true)
        #expect(error?.msg.contains(path) == true)
    }

    @Test("a value stored with the wrong type is a decoding error, not SQLite's silent conversion")
    func storageTypes() throws {
        let db = try Self.open(":memory:")
        try db.create(Course.self)
        try db.sql("INSERT INTO \"Course\" VALUES (1, X'00')")
        let error = #expect(throws: CRUDDecoderError.self) { try db.table(Course.self).select().map { $0 } }
        #expect(error?.msg == "reading Course: column \"title\": stored as BLOB where TEXT was expected")
    }

    @Test("a Bool column holding a number other than 0 or 1 is a decoding error, not true")
    func strictBool() throws {
        let db = try Self.open(":memory:")
        try db.create(Flag.self)
        try db.sql("INSERT INTO \"Flag\" VALUES (1, 0), (2, 1), (3, 2), (4, -1)")
        #expect(try db.table(Flag.self).where(\Flag.id <= 2).select().map(\.on) == [false, true])
        let error = #expect(throws: CRUDDecoderError.self) { try db.table(Flag.self).where(\Flag.id == 3).first() }
        #expect(error?.msg == "reading Flag: column \"on\": 2 where a Bool (0 or 1) was expected")
        #expect(throws: CRUDDecoderError.self) { try db.table(Flag.self).where(\Flag.id == 4).first() }
    }

    @Test("a WAL database in a directory this process may not write can be read, and writing gives a clear error")
    func readOnlyDirectory() async throws {
        try await offCooperativePool {
            let directory = Backend.directory.appending(path: "read-only-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appending(path: "ledger.sqlite").path
            do {
                let db = try Self.open(path)
                try db.sql("CREATE TABLE \"Ledger\" (\"id\" INTEGER PRIMARY KEY, \"transaction\" INTEGER NOT NULL, \"entry\" INTEGER NOT NULL)")
                try db.sql("INSERT INTO \"Ledger\" VALUES (1, 1, 1), (2, 1, 2), (3, 2, 1)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["ledger.sqlite"],
                    "closed cleanly: no -wal or -shm file is left to read from")
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path) }

            // Root may write anywhere, so as root the reader runs as an unprivileged user.
            let probe = try BuiltProgram("crud-test-probe")
            let (status, output) = getuid() == 0
                ? try BuiltProgram(URL(fileURLWithPath: "/usr/sbin/runuser")).run(["-u", "nobody", "--", probe.url.path, "read-then-write", path])
                : try probe.run(["read-then-write", path])
            #expect(status == 0)
            #expect(output.contains("rows: 3\n"), "\(output)")
            #expect(output.contains("error: CRUDSQLExeError: SQLite error 8 (attempt to write a readonly database) in \(path)"), "\(output)")
            #expect(!output.contains("written"))
        }
    }

    @Test("exclusiveToProcess: the process's readers and writer work at once, other processes are locked out until it shuts down")
    func exclusiveToProcess() async throws {
        let path = Backend.temporaryFile("sqlite")
        let db = Database(configuration: try SQLiteDatabaseConfiguration(path, busyTimeout: .seconds(5), exclusiveToProcess: true))
        try await db.create(Ledger.self)
        try await db.table(Ledger.self).insert((0 ..< 10).map { Ledger(id: $0, transaction: 0, entry: $0) })
        // Readers on the pool's reader connections see rows the writer adds meanwhile, never part of
        // a transaction: each read's snapshot comes from the index the connections share in memory.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for transaction in 1 ... 50 {
                    try await db.transaction { tx in
                        try await tx.table(Ledger.self).insert((0 ..< 10).map { Ledger(id: transaction * 10 + $0, transaction: transaction, entry: $0) })
                    }
                }
            }
            for _ in 0 ..< 8 {
                group.addTask {
                    var seen = 0
                    for _ in 0 ..< 200 {
                        let count = try await db.table(Ledger.self).count()
                        #expect(count % 10 == 0 && count >= seen, "\(count) rows after \(seen)")
                        seen = count
                        #expect(try await db.table(Ledger.self).where(\Ledger.id == 3).first()?.entry == 3)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await db.table(Ledger.self).count() == 510)

        try await offCooperativePool {
            let probe = try BuiltProgram("crud-test-probe")
            let locked = try probe.run(["read-then-write", path, "200"])
            #expect(locked.status == 0)
            #expect(locked.output.contains("error: CRUDSQLExeError: SQLite error 5 (database is locked) in \(path)"), "\(locked.output)")
            #expect(!locked.output.contains("rows:"), "\(locked.output)")
        }
        try await db.shutdown()
        try await offCooperativePool {
            let after = try BuiltProgram("crud-test-probe").run(["read-then-write", path, "200"])
            #expect(after.output == "rows: 510\nwritten\n", "the lock went with the database's last connection")
        }
    }

    @Test("exclusiveToProcess refuses a file another process has open, saying what to do; and a URI with a VFS of its own")
    func exclusiveToProcessRefused() async throws {
        let path = Backend.temporaryFile("sqlite")
        try await Self.open(path).create(Ledger.self)
        try await offCooperativePool {
            let holder = Process()
            holder.executableURL = try BuiltProgram("crud-test-probe").url
            holder.arguments = ["hold", path]
            let (input, output) = (Pipe(), Pipe())
            holder.standardInput = input
            holder.standardOutput = output
            let exited = try holder.runWatchingExit()
            defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
            let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            try #require(line == "holding 0\n", "the holder reports its read transaction")

            let error = #expect(throws: CRUDSQLExeError.self) {
                try SQLiteDatabaseConfiguration(path, busyTimeout: .milliseconds(200), exclusiveToProcess: true)
            }
            #expect(error?.msg == "cannot open SQLite database at \(path) exclusiveToProcess: another process has it open (database is locked); "
                    + "close that process's connections, or open it without exclusiveToProcess")
            #expect(error?.code == "5")

            try input.fileHandleForWriting.close()
            exited.wait()
            #expect(holder.terminationStatus == 0)
            let db = Database(configuration: try SQLiteDatabaseConfiguration(path, busyTimeout: .milliseconds(200), exclusiveToProcess: true))
            #expect(try db.table(Ledger.self).count() == 0, "opens once the other process has let go")
        }
        let error = #expect(throws: CRUDSQLExeError.self) {
            try SQLiteDatabaseConfiguration("file:\(path)?vfs=unix-dotfile", exclusiveToProcess: true)
        }
        #expect(error?.msg.contains("the URI names a VFS of its own") == true)
    }

    @Test("with SQLite's mutexes spinning (SQLiteProcess.useSpinningMutexes), 64 tasks reading, or writing and reading in transactions, get every row right",
          .timeLimit(.minutes(2)),
          .enabled(if: ProcessInfo.processInfo.environment["CRUD_TEST_SPINNING_MUTEXES"] == "1",
                   "runs alone, with CRUD_TEST_SPINNING_MUTEXES=1 (as .ci/run does): its probes keep both cores busy, beside the suite's timed cancels"))
    func spinningMutexes() async throws {
        // In a process of its own: SQLite takes the mutexes only before its first use in a process,
        // and this one's suites have used it. One process at a time, and the test alone: each keeps
        // both cores busy, and the suites beside it time their calls.
        for load in ["reads", "transactions"] {
            let (status, output) = try await BuiltProgram.runThreadsProbe(.sqlite, ["load=\(load)", "mutexes=spinning"])
            #expect(status == 0, "\(load): every task read back what it wrote, and the database shut down: \(output)")
            #if os(Linux)
            #expect(output.hasPrefix("SQLite's mutexes spin: true\n"), "\(load): \(output)")
            #else
            #expect(output.hasPrefix("SQLite's mutexes spin: false\n"), "no adaptive mutexes here: SQLite keeps its own: \(output)")
            #endif
        }
    }

    @Test("SQLiteProcess.useSpinningMutexes once SQLite is in use: an error that says when to call it, and SQLite goes on as it was")
    func spinningMutexesTooLate() async throws {
        let db = try Self.open(Backend.temporaryFile("sqlite"))
        try await db.create(Course.self)
        for _ in 0 ..< 2 {
            #if os(Linux)
            let error = #expect(throws: CRUDSQLExeError.self) { try SQLiteProcess.useSpinningMutexes() }
            #expect(error?.msg == "SQLite's mutexes can be replaced only before SQLite's first use in the process, and it was used already: "
                    + "call SQLiteProcess.useSpinningMutexes() at the start of the program, before any SQLite database opens")
            #expect(error?.code == "21", "SQLITE_MISUSE")
            #else
            #expect(try SQLiteProcess.useSpinningMutexes() == false, "no adaptive mutexes here: SQLite keeps its own")
            #endif
        }
        try await db.table(Course.self).insert(Course(id: 1, title: "still"))
        #expect(try await db.table(Course.self).first()?.title == "still")
    }

    @Test("two Database values on one file write at once: the busy timeout serializes them, nothing is lost")
    func twoDatabasesOneFile() throws {
        let path = Backend.temporaryFile("sqlite")
        let first = try Self.open(path)
        let second = try Self.open(path)
        try first.create(Course.self)
        let failures = Collector<String>()
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            let db = worker == 0 ? first : second
            for transaction in 0 ..< 50 {
                do {
                    try db.transaction {
                        let base = worker * 10_000 + transaction * 10
                        try db.table(Course.self).insert((base ..< base + 10).map { Course(id: $0, title: "w\(worker)") })
                    }
                } catch {
                    failures.append("\(error)")
                }
            }
        }
        #expect(failures.items.isEmpty, "\(failures.items.prefix(3))")
        #expect(try first.table(Course.self).count() == 1_000)
        #expect(try second.table(Course.self).count() == 1_000)
    }

    @Test("alterTable leaves a table that matches its model as it is, adds optional columns in place, and rebuilds otherwise")
    func alterTableWithoutRebuild() throws {
        let db = try Self.open(Backend.temporaryFile("sqlite"))
        try db.create(NoteV1.self)
        try db.table(NoteV1.self).insert([NoteV1(id: nil, text: "a"), NoteV1(id: nil, text: "b")], ignoreKeys: \.id)
        // A rebuild makes a new table, on a new root page.
        func rootPage() throws -> Int {
            try #require(try db.sql("SELECT rootpage AS n FROM sqlite_master WHERE type = 'table' AND name = 'Note'", SingleNumber.self).first?.n)
        }
        let page = try rootPage()
        try db.alterTable(NoteV1.self)
        #expect(try rootPage() == page, "nothing differs: the table stays as it is")

        try db.alterTable(NoteV2.self)
        #expect(try rootPage() == page, "an optional column is added with ADD COLUMN")
        #expect(try db.table(NoteV2.self).order(by: \.id).select().map { "\($0.text) \($0.author ?? "-")" } == ["a -", "b -"])
        try db.alterTable(NoteV2.self)
        #expect(try rootPage() == page, "the table with the added column matches its model")
        #expect(throws: CRUDSQLExeError.self, "the unique constraint holds") {
            try db.table(NoteV2.self).insert(NoteV2(id: nil, text: "a", author: nil), ignoreKeys: \.id)
        }

        try db.alterTable(NoteV3.self)
        #expect(try rootPage() != page, "a non-optional column more is a rebuild")
        #expect(try db.table(NoteV3.self).order(by: \.id).select().map(\.words) == [0, 0])
        // A constraint the model no longer has, or one that differs, is a rebuild too.
        let rebuiltPage = try rootPage()
        try db.sql("ALTER TABLE \"Note\" RENAME TO \"OldNote\"")
        try db.sql("CREATE TABLE \"Note\" (\"id\" INTEGER PRIMARY KEY, \"text\" TEXT NOT NULL, \"author\" TEXT, \"words\" INTEGER NOT NULL, "
            + "CONSTRAINT \"Note_text_key\" UNIQUE (\"text\"), CONSTRAINT \"Note_check\" CHECK (\"words\" < 10))")
        try db.alterTable(NoteV3.self)
        try db.table(NoteV3.self).insert(NoteV3(id: nil, text: "long", author: nil, words: 100), ignoreKeys: \.id)
        #expect(try rootPage() != rebuiltPage)
    }
}
