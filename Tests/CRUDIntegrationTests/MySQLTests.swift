#if MySQL
@_spi(CRUDDriver) import CRUD
import CRUDMySQL
import Foundation
import Testing

/// The MySQL driver on its own: connection forms and errors, native types, error details, ids.
@Suite("MySQL", .enabled(if: !MariaDBTestServer.isSkipped, "CRUD_SKIP_MYSQL=1"))
struct MySQLTests {
    static func server() throws -> MariaDBTestServer {
        try MariaDBTestServer.shared.get()
    }

    static func database() throws -> Database<MySQLDatabaseConfiguration> {
        Database(configuration: try server().freshConfiguration())
    }

    @Test("the README's parameters, a mysql:// URL and a socket path all connect")
    func configurationForms() throws {
        let server = try Self.server()
        let mariadb = try #require(server.server, "needs the throwaway server, whose address and password the test knows")
        let user = MariaDBTestServer.user, password = MariaDBTestServer.password
        let forms = [
            try MySQLDatabaseConfiguration(database: "mysql", host: "127.0.0.1", port: mariadb.port, username: user, password: password),
            try MySQLDatabaseConfiguration(url: "mysql://\(user):\(password)@127.0.0.1:\(mariadb.port)/mysql"),
            try MySQLDatabaseConfiguration(database: "mysql", socket: mariadb.socket, username: "root"),
            try MySQLDatabaseConfiguration(url: "mysql://root@localhost/mysql?socket=\(mariadb.socket)"),
        ]
        for configuration in forms {
            #expect(try Database(configuration: configuration).sql("SELECT DATABASE() AS \"text\"", TextValue.self).map(\.text) == ["mysql"])
        }
    }

    @Test("a configuration with a connectRetry window waits for a server that is starting; one that connects on first use starts without it",
          .timeLimit(.minutes(3)))
    func waitsForAStartingServer() async throws {
        _ = try Self.server()
        // A server of its own, so stopping it disturbs no other test.
        let server = try MariaDBServer.start()
        defer { server.stop() }
        _ = try server.database()
        try await onThread { try server.shutDown() }
        @Sendable func configuration(_ pool: MySQLPoolOptions) throws -> MySQLDatabaseConfiguration {
            try MySQLDatabaseConfiguration(database: "crud_restart", host: "127.0.0.1", port: server.port, username: MariaDBServer.user,
                                           password: MariaDBServer.password, connectTimeout: 2, pool: pool)
        }
        let down = #expect(throws: CRUDSQLExeError.self) { try configuration(.init()) }
        #expect(down?.kind == .connectionLost)
        // Connecting on first use, the configuration is made while the server is down, and ping says so.
        let lazy = Database(configuration: try configuration(.init(connectsOnFirstUse: true)))
        let unreachable = await #expect(throws: CRUDSQLExeError.self) { try await lazy.ping() }
        #expect(unreachable?.kind == .connectionLost)

        let waiting = Task { try await onThread { try configuration(.init(connectRetry: .seconds(60))) } }
        try await Task.sleep(for: .milliseconds(500))
        try await onThread { try server.startAgain() }
        let db = Database(configuration: try await waiting.value)
        try await db.ping()
        try await db.shutdown()
        // The lazy one works now, with the SQL both servers take: as on MySQL, no RETURNING.
        try await lazy.ping()
        try await lazy.create(Course.self, policy: .dropTable)
        try await lazy.table(Course.self).insert(Course(id: 7, title: "lazy"))
        await #expect(throws: CRUDSQLGenError.self) { try await lazy.table(Course.self).returning(insert: Course(id: 8, title: "returned")) }
        #expect(try await lazy.table(Course.self).select().map(\.title) == ["lazy"])
        try await lazy.table(Course.self).index(\.title)
        try await lazy.table(Course.self).index(\.title)
        #expect(try await lazy.table(Course.self).count() == 1)
        try await lazy.shutdown()
    }

    @Test("after a lost connection the others are probed and reconnected waiting on the event loop: 7 writers during an outage, whose next host never answers, wait together, adding no thread",
          .timeLimit(.minutes(2)))
    func reconnectWithoutBlocking() async throws {
        _ = try Self.server()
        let mariadb = try MariaDBServer.start()
        defer { mariadb.stop() }
        _ = try mariadb.database()
        let silent = try LoopbackPort.listeningWithoutAnswer()
        defer { close(silent.socket) }
        // The first write finds its connection lost and is dropped; the 7 other connections, idle, are
        // probed before their next use, found lost, and reconnect at once: one connect timeout in all
        // (blocking, Swift's pool ran two at a time: 8 s on 2 cores).
        let outage = try await OutageProbe.run("mysql", port: mariadb.port, silent: silent.port, password: MariaDBServer.password,
                                               writers: 7, attempts: 1, database: "crud_restart") { try mariadb.shutDown() }
        outage.check(writes: 8, timeouts: 1)
    }

    @Test("wrong password, refused port, missing database and a bad URL fail fast with errors that say what failed")
    func connectionErrors() throws {
        let mariadb = try #require(try Self.server().server, "needs the throwaway server")
        let started = Date()
        let wrongPassword = #expect(throws: CRUDSQLExeError.self) {
            try MySQLDatabaseConfiguration(database: "mysql", host: "127.0.0.1", port: mariadb.port, username: MariaDBTestServer.user, password: "wrong")
        }
        #expect(wrongPassword?.code == "1045", "ER_ACCESS_DENIED_ERROR")
        #expect(wrongPassword?.msg.contains("Access denied for user 'crud'") == true)
        #expect(wrongPassword?.msg.contains("database \"mysql\" at 127.0.0.1:\(mariadb.port)") == true)

        let missing = #expect(throws: CRUDSQLExeError.self) {
            try MySQLDatabaseConfiguration(database: "no_such_database", host: "127.0.0.1", port: mariadb.port,
                                           username: MariaDBTestServer.user, password: MariaDBTestServer.password)
        }
        #expect(missing?.code == "1049", "ER_BAD_DB_ERROR")
        #expect(missing?.msg.contains("Unknown database 'no_such_database'") == true)

        let refused = #expect(throws: CRUDSQLExeError.self) {
            try MySQLDatabaseConfiguration(database: "mysql", host: "127.0.0.1", port: 1, username: "crud", connectTimeout: 3)
        }
        #expect(refused?.code == "2002" || refused?.code == "2003", "CR_CONNECTION_ERROR or CR_CONN_HOST_ERROR")
        #expect(refused?.msg.contains("127.0.0.1:1") == true)

        let badURL = #expect(throws: CRUDSQLGenError.self) { try MySQLDatabaseConfiguration(url: "postgres://u:secret@host/db") }
        #expect(badURL?.msg.contains("secret") == false, "the password is not repeated")
        #expect(Date().timeIntervalSince(started) < 15)
    }

    @Test("columns get MySQL's native types; every column type round-trips in the binary protocol")
    func nativeTypes() throws {
        let db = try Self.database()
        try db.create(AllColumnTypes.self)
        let columns = try #require(try db.withConnection { try $0.columns(ofTable: "AllColumnTypes") })
        let byColumn = Dictionary(uniqueKeysWithValues: columns.map { ($0.name, $0.declaredType) })
        #expect(byColumn["id"] == "bigint(20)")
        #expect(byColumn["int8"] == "tinyint(4)")
        #expect(byColumn["uint16"] == "smallint(5) unsigned")
        #expect(byColumn["uint64"] == "bigint(20) unsigned")
        #expect(byColumn["double"] == "double")
        #expect(byColumn["float"] == "float")
        #expect(byColumn["bool"] == "tinyint(1)")
        #expect(byColumn["string"] == "longtext")
        #expect(byColumn["bytes"] == "longblob")
        #expect(byColumn["date"] == "datetime(6)")
        #expect(byColumn["uuid"] == "binary(16)")
        try db.checkSchema([AllColumnTypes.self])

        let rows = [ValueMappingTests.sample(id: 1, for: db.configuration),
                    ValueMappingTests.sparse(id: 2, for: db.configuration)]
        try db.table(AllColumnTypes.self).insert(rows)
        let read = try db.table(AllColumnTypes.self).order(by: \.id).select().map { $0 }
        #expect(read.map(ValueMappingTests.normalized) == rows.map(ValueMappingTests.normalized))
        #expect(abs(read[0].date.timeIntervalSince(rows[0].date)) < 0.000_001, "DATETIME(6) keeps microseconds")

        for value in [Double.infinity, -.infinity, .nan] {
            var infinite = ValueMappingTests.sample(id: 3, for: db.configuration)
            infinite.optionalDouble = value
            let error = #expect(throws: CRUDEncoderError.self) { try db.table(AllColumnTypes.self).insert(infinite) }
            #expect(error?.msg.contains("store no infinity or NaN in a DOUBLE") == true)
        }
        #expect(try db.table(AllColumnTypes.self).count() == 2, "nothing stored")
    }

    @Test("errors carry the server's error number, its message and the SQL; violations are told apart by kind")
    func errorDetails() throws {
        let db = try Self.database()
        try db.create(Course.self)
        try db.table(Course.self).insert(Course(id: 1, title: "a"))
        let error = #expect(throws: CRUDSQLExeError.self) { try db.table(Course.self).insert(Course(id: 1, title: "b")) }
        #expect(error?.code == "1062", "ER_DUP_ENTRY")
        #expect(error?.kind == .uniqueViolation)
        #expect(error?.msg.contains("SQLSTATE 23000") == true)
        #expect(error?.databaseMessage?.contains("Duplicate entry '1' for key 'PRIMARY'") == true)
        #expect(error?.sql == "INSERT INTO `Course` (`id`, `title`) VALUES (?, ?)")
        let syntax = #expect(throws: CRUDSQLExeError.self) { try db.sql("SELEKT 1") }
        #expect(syntax?.code == "1064")
    }

    @Test("the session keeps the server's quoting and escaping: names in backticks, \"…\" a string, \\ an escape; strict mode added")
    func serverQuotingAndEscaping() throws {
        let db = try Self.database()
        try db.create(Course.self)
        let mode = try #require(try db.sql("SELECT @@SESSION.sql_mode AS text", TextValue.self).first?.text).split(separator: ",")
        #expect(!mode.contains("ANSI_QUOTES") && !mode.contains("NO_BACKSLASH_ESCAPES"), "\(mode)")
        #expect(mode.contains("STRICT_ALL_TABLES") && mode.contains("NO_AUTO_VALUE_ON_ZERO"), "\(mode)")
        #expect(mode.contains("ERROR_FOR_DIVISION_BY_ZERO"), "the server's own modes stay: \(mode)")

        // As in any MySQL client: a double-quoted word is a string, a backslash escapes.
        #expect(try db.sql(#"SELECT "word" AS text"#, TextValue.self).map(\.text) == ["word"])
        #expect(try db.sql(#"SELECT 'it\'s' AS text"#, TextValue.self).map(\.text) == ["it's"])
        try db.sql("INSERT INTO `Course` (`id`, `title`) VALUES (1, 'back\\\\slash 100%')")
        #expect(try db.table(Course.self).select().map(\.title) == ["back\\slash 100%"], "one backslash stored")
        #expect(try db.table(Course.self).where(\Course.title =% "back\\slash").count() == 1, "LIKE escapes in this mode")
        #expect(try db.table(Course.self).where(\Course.title %=% "100%").count() == 1)
        #expect(try db.table(Course.self).where(\Course.title %=% "1000").count() == 0, "% is itself in a pattern")
        #expect(db.quote("odd`name") == "`odd``name`" && db.quote(Course.self) == "`Course`")

        // SQL quoted for the other backends fails with a message that says why.
        let quoted = #expect(throws: CRUDSQLExeError.self) { try db.sql(#"UPDATE "Course" SET "title" = 'x'"#) }
        #expect(quoted?.code == "1064")
        #expect(quoted?.msg.contains("quote names in backticks, or with db.quote(_:)") == true, "\(String(describing: quoted))")
    }

    @Test("a restarted server: the next call fails clearly, the one after works again; a pool of several replaces every connection",
          .timeLimit(.minutes(3)))
    func reconnect() async throws {
        _ = try MariaDBTestServer.shared.get()
        // A server of its own, so restarting it disturbs no other test.
        let server = try MariaDBServer.start()
        defer { server.stop() }
        let db = try server.database(pool: MySQLPoolOptions(maximumConnections: 4))
        try await db.create(Course.self)
        try await db.table(Course.self).insert(Course(id: 1, title: "before"))
        // Four connections open at once, so the pool holds four to lose.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0 ..< 4 { group.addTask { try await db.table(Course.self).count() } }
            for try await count in group { #expect(count == 1) }
        }
        try server.restart()

        var visited = 0
        let error = await #expect(throws: CRUDSQLExeError.self, "the first call after the restart throws, never stops the program") {
            for _ in try await db.table(Course.self).select() { visited += 1 }
        }
        #expect(visited == 0)
        #expect(error?.msg.contains("lost the connection to MySQL") == true, "\(String(describing: error))")
        #expect(error?.msg.contains("the next call reconnects") == true)
        #expect(try await db.table(Course.self).count() == 1)
        try await db.table(Course.self).insert(Course(id: 2, title: "after"))
        #expect(try await db.table(Course.self).order(by: \.id).select().map(\.title) == ["before", "after"])
        // Every pooled connection was lost; once one found it, the pool has the others ask the server first.
        var failures = 0
        for _ in 0 ..< 20 {
            do {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0 ..< 4 { group.addTask { try await db.table(Course.self).count() } }
                    for try await count in group { #expect(count == 2) }
                }
            } catch let lost as CRUDSQLExeError where lost.msg.contains("lost the connection") {
                failures += 1
            }
        }
        #expect(failures == 0, "the pool asked its other connections before their next use, and they reconnected")
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0 ..< 4 { group.addTask { try await db.table(Course.self).count() } }
            for try await count in group { #expect(count == 2) }
        }
    }

    @Test("lastInsertId is AUTO_INCREMENT's value, UInt64 as MySQL reports it; nil before any")
    func lastInsertId() throws {
        let db = try Self.database()
        try db.create(Defaults.self)
        #expect(try db.withConnection { try $0.lastInsertId(using: CRUDConnectionRunner($0)) } == nil)
        let inserted = try db.table(Defaults.self).insert(Defaults(id: nil, name: "first"))
        let first: UInt64? = try inserted.lastInsertId()
        #expect(first == 1, "UInt64, as Perfect-CRUD's MySQL form")
        let second = try db.table(Defaults.self).insert(Defaults(id: nil, name: "second"))
        #expect(try second.lastInsertId() == UInt64(2))
        #expect(try second.lastInsertId() == UInt64(2), "asking again reads the same id: the read is no other statement")
        #expect(try db.table(Defaults.self).order(by: \.id).select().map(\.name) == ["first", "second"])

        // Connector/C reports a multi-row insert's first generated id, and the last one given.
        let many = (3 ... 6).map { Defaults(id: nil, name: "row \($0)") }
        #expect(try db.table(Defaults.self).insert(many, ignoreKeys: \.id).lastInsertId() == UInt64(6))
        #expect(try db.table(Defaults.self).insert([Defaults(id: nil, name: "a"), Defaults(id: nil, name: "b")]).lastInsertId() == UInt64(8),
                "NULL ids are generated too")
        #expect(try db.table(Defaults.self).insert([Defaults(id: 40, name: "x"), Defaults(id: 30, name: "y")]).lastInsertId() == UInt64(30))
        // With an observer, inserts return their ids (INSERT … RETURNING): the same answers.
        db.didUpdate = { _, _, _ in }
        #expect(try db.table(Defaults.self).insert(Defaults(id: nil, name: "observed")).lastInsertId() == UInt64(41))
        #expect(try db.table(Defaults.self).insert(many, ignoreKeys: \.id).lastInsertId() == UInt64(45))
    }

    @Test("a schema change inside a transaction runs on a connection of its own: the transaction stays open, its rollback does not undo it")
    func schemaChangeInTransaction() throws {
        let db = try Self.database()
        try db.create(Course.self)
        try db.transaction {
            try db.table(Course.self).insert(Course(id: 1, title: "committed with the transaction"))
            try db.create(Pupil.self, policy: .shallow).insert(Pupil(id: 1, name: "Ada", nickname: nil))
            try db.create(Grade.self)
            try db.table(Grade.self).index(\.score)
            try db.table(Grade.self).insert(Grade(id: 1, pupilId: 1, score: 3))
        }
        #expect(try db.table(Course.self).select().map(\.id) == [1])
        #expect(try db.table(Pupil.self).select().map(\.name) == ["Ada"])
        #expect(try db.table(Grade.self).select().map(\.score) == [3])

        struct Undone: Error {}
        #expect(throws: Undone.self) {
            try db.transaction {
                try db.table(Course.self).insert(Course(id: 2, title: "rolled back"))
                try db.create(Enrollment.self)
                // Had the CREATE committed the transaction, the insert would stay.
                throw Undone()
            }
        }
        #expect(try db.table(Course.self).select().map(\.id) == [1], "the insert was rolled back: the CREATE committed nothing")
        #expect(try db.withConnection { try $0.columnNames(ofTable: "Enrollment") } != nil, "the rollback does not undo the CREATE")
    }

    @Test("the async forms make a schema change beside the transaction too, and refuse it for a table the transaction used")
    func schemaChangeInAsyncTransaction() async throws {
        let db = try Self.database()
        try await db.create(Course.self)
        try await db.transaction { db in
            try await db.table(Course.self).insert(Course(id: 1, title: "async"))
            try await db.create(Class.self, policy: .shallow).insert(Class(id: 1))
        }
        #expect(try await db.table(Course.self).select().map(\.id) == [1])
        #expect(try await db.table(Class.self).count() == 1)
        await #expect(throws: CRUDSQLGenError.self) {
            try await db.transaction { db in
                try await db.table(Class.self).insert(Class(id: 2))
                try await db.table(Class.self).index(\.id)
            }
        }
        #expect(try await db.table(Class.self).count() == 1)
    }

    @Test("a schema change to a table the transaction used is refused: MySQL's metadata lock would make it wait forever")
    func schemaChangeOnUsedTable() throws {
        let db = try Self.database()
        try db.create(Course.self)
        try db.table(Course.self).insert(Course(id: 1, title: "kept"))
        let started = Date()
        let refused = #expect(throws: CRUDSQLGenError.self) {
            try db.transaction {
                try db.table(Course.self).insert(Course(id: 2, title: "rolled back"))
                try db.create(Course.self, policy: .dropTable)
            }
        }
        #expect(refused?.msg.contains("the transaction has used the table \"Course\"") == true, "\(String(describing: refused))")
        #expect(refused?.msg.contains("before the transaction begins or after it ends") == true)
        #expect(Date().timeIntervalSince(started) < 5, "refused at once, not after a wait")
        #expect(try db.table(Course.self).select().map(\.id) == [1], "the table was not dropped, and the insert was rolled back")

        // Raw SQL names tables the chain does not know of: its names count too, quoted or not.
        for statement in ["INSERT INTO Course (id, title) VALUES (3, 'raw')", "SELECT COUNT(*) FROM `Course` WHERE title <> 'x'"] {
            let raw = #expect(throws: CRUDSQLGenError.self) {
                try db.transaction {
                    try db.sql(statement)
                    try db.table(Course.self).index(\.title)
                }
            }
            #expect(raw?.msg.contains("has used the table \"Course\"") == true, "\(statement): \(String(describing: raw))")
        }
        // A table used only by a transaction that ended is free again.
        try db.transaction { try db.table(Course.self).insert(Course(id: 4, title: "committed")) }
        try db.transaction { try db.table(Course.self).index(\.title) }
        #expect(try db.table(Course.self).select().map(\.id) == [1, 4])

        let migrator = { var migrator = CRUDMigrator<MySQLDatabaseConfiguration>(); migrator.register("pupils") { try $0.create(Pupil.self) }; return migrator }()
        let migration = #expect(throws: CRUDSQLGenError.self) { try db.transaction { try migrator.migrate(db) } }
        #expect(migration?.msg.contains("call migrate outside any transaction") == true, "\(String(describing: migration))")
        #expect(try migrator.migrate(db) == ["pupils"])
    }

    @Test("a schema change beside a transaction waits no longer than the pool's timeout for another's lock", .timeLimit(.minutes(1)))
    func schemaChangeBesideWaitsBounded() throws {
        let server = try Self.server()
        let db = Database(configuration: try server.freshConfiguration())
        try db.create(Course.self)
        let name = try #require(try db.sql("SELECT DATABASE() AS \"text\"", TextValue.self).first?.text)
        let other = Database(configuration: try server.configuration(database: name, pool: .init(timeout: .seconds(2))))
        // Another connection's open transaction holds Course's metadata lock.
        let holder = try db.createChild()
        try holder.beginTransaction()
        try holder.table(Course.self).insert(Course(id: 1, title: "held"))
        let started = Date()
        let waited = #expect(throws: CRUDSQLExeError.self) {
            try other.transaction {
                try other.create(Pupil.self, policy: .shallow)
                try other.table(Course.self).index(\.title)
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        try holder.rollbackTransaction()
        #expect(waited?.kind == .busyOrLocked)
        #expect(waited?.code == "1205", "ER_LOCK_WAIT_TIMEOUT")
        #expect(waited?.msg.contains("index on Course: made beside the open transaction") == true, "\(String(describing: waited))")
        #expect(waited?.msg.contains("waited 2 s") == true)
        #expect(elapsed >= 1.5 && elapsed < 20, "\(elapsed) s")
        #expect(try other.withConnection { try $0.columnNames(ofTable: "Pupil") } != nil, "the CREATE before it was made, and stays")
        try other.transaction { try other.table(Course.self).index(\.title) }
    }

    @Test("joins with a limit on the parents: MySQL takes the limited subquery as a derived table")
    func joinsWithLimits() throws {
        try JoinTests().severalJoins(try Self.server().freshConfiguration())
    }

    @Test("MariaDB's CREATE INDEX IF NOT EXISTS; MySQL's dialect leaves it out and takes 1061 for an index that exists")
    func indexIfNotExists() throws {
        let db = try Self.database()
        try db.create(Course.self)
        try db.table(Course.self).index(\.title)
        try db.table(Course.self).index(\.title)
        #expect(MySQLDialect(isMariaDB: true).createIndexIfNotExists)
        let mysql = MySQLDialect(isMariaDB: false, version: 80_036)
        #expect(!mysql.createIndexIfNotExists)
        #expect(mysql.indexAlreadyExists(CRUDSQLExeError("Duplicate key name 'index_Course_title'", code: "1061")))
        #expect(!mysql.indexAlreadyExists(CRUDSQLExeError("Table 'x' doesn't exist", code: "1146")))
    }

    @Test("a row of default values only is inserted with MySQL's () VALUES ()")
    func defaultValues() throws {
        let db = try Self.database()
        try db.create(Defaults.self)
        try db.table(Defaults.self).insert(Defaults(id: nil, name: "ignored"), ignoreKeys: \.id, \.name)
        #expect(try db.table(Defaults.self).select().map(\.name) == [nil])
    }

    @Test("a value over max_allowed_packet is refused before it is sent, naming the limit; the next call works", .timeLimit(.minutes(1)))
    func oversizedValue() throws {
        let db = try Self.database()
        try db.create(Payload.self)
        let limit = try #require(try db.sql("SELECT @@max_allowed_packet AS n", SingleNumber.self).first?.n)
        let error = #expect(throws: CRUDSQLExeError.self) {
            try db.table(Payload.self).insert(Payload(id: 1, bytes: [UInt8](repeating: 7, count: limit + 1)))
        }
        #expect(error?.msg.contains("max_allowed_packet of \(limit) bytes") == true, "\(String(describing: error))")
        #expect(error?.kind != .connectionLost)
        try db.table(Payload.self).insert(Payload(id: 2, bytes: [1, 2, 3]))
        let literal = #expect(throws: CRUDSQLExeError.self) { try db.sql("SELECT '" + String(repeating: "a", count: limit) + "'") }
        #expect(literal?.msg.contains("max_allowed_packet") == true, "\(String(describing: literal))")
        #expect(try db.table(Payload.self).select().map(\.bytes) == [[1, 2, 3]], "the connection stayed usable")
    }
}
#endif
