@_spi(CRUDDriver) import CRUD
import CRUDPostgres
import Foundation
import Testing

@Suite("PostgreSQL", .enabled(if: !PostgresTestServer.isSkipped, "CRUD_SKIP_POSTGRES=1"))
struct PostgresTests {
    static func server() throws -> PostgresTestServer {
        try PostgresTestServer.shared.get()
    }

    static func database() throws -> Database<PostgresDatabaseConfiguration> {
        Database(configuration: try server().freshConfiguration())
    }

    @Test("the README's parameters, a connection URL, and libpq keywords all connect")
    func configurationForms() throws {
        let server = try Self.server()
        let cluster = try #require(server.cluster, "needs the throwaway server, whose address and password the test knows")
        let byParameters = try PostgresDatabaseConfiguration(
            database: "postgres", host: "127.0.0.1", port: cluster.port, username: "postgres", password: PostgresCluster.password)
        let byURL = try PostgresDatabaseConfiguration(
            url: "postgresql://postgres:\(PostgresCluster.password)@127.0.0.1:\(cluster.port)/postgres")
        for configuration in [byParameters, byURL] {
            let rows = try Database(configuration: configuration).sql("SELECT current_database()::text AS text", TextValue.self)
            #expect(rows.map(\.text) == ["postgres"])
        }
    }

    @Test("with connectsOnFirstUse, a configuration starts while its server is down: ping says so, and a call with a retry window succeeds once the server starts",
          .timeLimit(.minutes(2)))
    func startsWhileTheServerIsDown() async throws {
        _ = try Self.server()
        // A cluster of its own, so stopping it disturbs no other test.
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        try await onThread { try cluster.control("stop") }
        let parameters = ["host": "127.0.0.1", "port": String(cluster.port), "user": "postgres", "password": PostgresCluster.password,
                          "dbname": "postgres", "connect_timeout": "2"]

        // Perfect-CRUD's initializers still connect at once, and throw.
        let eager = #expect(throws: CRUDSQLExeError.self) { try PostgresDatabaseConfiguration(parameters: parameters) }
        #expect(eager?.kind == .connectionLost)
        let lazy = Database(configuration: try PostgresDatabaseConfiguration(parameters: parameters, pool: .init(connectsOnFirstUse: true)))
        let down = await #expect(throws: CRUDSQLExeError.self) { try await lazy.ping() }
        #expect(down?.kind == .connectionLost)
        #expect(down?.msg.contains(String(cluster.port)) == true, "the error names the server: \(String(describing: down))")

        // A call made while the server is down waits for it, within the window.
        let retrying = Database(configuration: try PostgresDatabaseConfiguration(
            parameters: parameters, pool: .init(connectsOnFirstUse: true, connectRetry: .seconds(60))))
        let call = Task { try await retrying.sql("SELECT 1 AS value", ConnectionNumber.self).map(\.value) }
        try await Task.sleep(for: .milliseconds(500))
        try await onThread { try cluster.control("start") }
        #expect(try await call.value == [1])
        try await lazy.ping()
        try await retrying.shutdown()
        try await lazy.shutdown()

        // A window that passes: the error says how long it tried.
        try await onThread { try cluster.control("stop") }
        let brief = Database(configuration: try PostgresDatabaseConfiguration(
            parameters: parameters, pool: .init(connectsOnFirstUse: true, connectRetry: .milliseconds(300))))
        let gaveUp = await #expect(throws: CRUDSQLExeError.self) { try await brief.ping() }
        #expect(gaveUp?.kind == .connectionLost)
        #expect(gaveUp?.msg.contains("times in") == true, "\(String(describing: gaveUp))")
    }

    @Test("wrong password, refused port and missing database fail fast with errors that say what failed")
    func connectionErrors() throws {
        let cluster = try #require(try Self.server().cluster, "needs the throwaway server, whose address and password the test knows")
        let started = Date()
        let wrongPassword = #expect(throws: CRUDSQLExeError.self) {
            try PostgresDatabaseConfiguration(database: "postgres", host: "127.0.0.1", port: cluster.port, username: "postgres", password: "wrong")
        }
        #expect(wrongPassword?.msg.contains("password authentication failed for user \"postgres\"") == true)
        #expect(wrongPassword?.msg.contains("PostgreSQL database \"postgres\" at 127.0.0.1:\(cluster.port)") == true)

        let missing = #expect(throws: CRUDSQLExeError.self) {
            try PostgresDatabaseConfiguration(database: "no_such_database", host: "127.0.0.1", port: cluster.port,
                                              username: "postgres", password: PostgresCluster.password)
        }
        #expect(missing?.msg.contains("database \"no_such_database\" does not exist") == true)

        let refused = #expect(throws: CRUDSQLExeError.self) {
            try PostgresDatabaseConfiguration(database: "postgres", host: "127.0.0.1", port: 1, username: "postgres", connectTimeout: 3)
        }
        #expect(refused?.msg.contains("127.0.0.1") == true && refused?.msg.contains("refused") == true)

        let badURL = #expect(throws: CRUDSQLExeError.self) { try PostgresDatabaseConfiguration(url: "postgresql://[not a url") }
        #expect(badURL?.msg.hasPrefix("cannot connect to PostgreSQL at") == true)
        #expect(Date().timeIntervalSince(started) < 15)
    }

    @Test("columns get PostgreSQL's native types")
    func nativeTypes() throws {
        let db = try Self.database()
        try db.create(AllColumnTypes.self)
        let types = try db.sql("""
            SELECT column_name::text AS column_name, data_type::text AS data_type FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = 'AllColumnTypes'
            """, ColumnType.self)
        let byColumn = Dictionary(uniqueKeysWithValues: types.map { ($0.column_name, $0.data_type) })
        #expect(byColumn["id"] == "bigint")
        #expect(byColumn["int8"] == "smallint")
        #expect(byColumn["int16"] == "smallint")
        #expect(byColumn["int32"] == "integer")
        #expect(byColumn["uint16"] == "integer")
        #expect(byColumn["uint32"] == "bigint")
        #expect(byColumn["double"] == "double precision")
        #expect(byColumn["float"] == "real")
        #expect(byColumn["bool"] == "boolean")
        #expect(byColumn["string"] == "text")
        #expect(byColumn["bytes"] == "bytea")
        #expect(byColumn["data"] == "bytea")
        #expect(byColumn["date"] == "timestamp with time zone")
        #expect(byColumn["uuid"] == "uuid")
        #expect(byColumn["url"] == "text")
    }

    @Test("every binary width reads; a NULL, another type and a column the result lacks throw errors that name the column and what was found")
    func cellReads() throws {
        let db = try Self.database()
        let sql = """
            SELECT 7::int2 AS small, 8::int4 AS medium, 9::int8 AS large, 42::oid AS oid, 1.5::float4 AS single,
            2.5::float8 AS double, true AS yes, NULL::int8 AS missing, 'words'::text AS words, '{"a": 1}'::jsonb AS document,
            DATE '2000-01-02' AS day, TIMESTAMPTZ '2000-01-01 00:00:01.5+00' AS moment,
            'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS id, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::text AS id_text
            """
        try db.withConnection { connection in
            let statement = try connection.prepareOwned(sql)
            #expect(try statement.step())
            #expect(try (0 ... 3).map { try statement.readInt64($0) } == [7, 8, 9, 42])
            #expect(try [0, 2, 4, 5].map { try statement.readReal($0) } == [7, 9, 1.5, 2.5])
            #expect(try statement.readBool(6))
            #expect(statement.isNull(7) && !statement.isNull(8))
            #expect(try statement.readText(8) == "words")
            #expect(try statement.readText(9) == #"{"a": 1}"#)
            #expect(try statement.readDate(10) == Date(timeIntervalSince1970: 946_684_800 + 86_400))
            #expect(try statement.readDate(11) == Date(timeIntervalSince1970: 946_684_801.5))
            #expect(try statement.readUUID(12) == UUID(uuidString: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))
            #expect(try statement.readUUID(13) == UUID(uuidString: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))

            let null = #expect(throws: CRUDDecoderError.self) { try statement.readInt64(7) }
            #expect(null?.msg == "column \"missing\": \(CRUDDecoderError.nullProblem)")
            let text = #expect(throws: CRUDDecoderError.self) { try statement.readInt64(8) }
            #expect(text?.msg == "column \"words\": has PostgreSQL type 25 where an integer was expected")
            let flag = #expect(throws: CRUDDecoderError.self) { try statement.readBool(0) }
            #expect(flag?.msg == "column \"small\": has PostgreSQL type 21 where boolean was expected")
            let moment = #expect(throws: CRUDDecoderError.self) { try statement.readDate(8) }
            #expect(moment?.msg == "column \"words\": has PostgreSQL type 25 where timestamptz was expected")
            let beyond = #expect(throws: CRUDDecoderError.self) { try statement.readInt64(14) }
            #expect(beyond?.msg == "no column 14 to read an integer from: the result has 14 (\(sql))")
            #expect(throws: CRUDDecoderError.self) { try statement.readText(-1) }
            #expect(try !statement.step())
        }
    }

    @Test("errors carry SQLSTATE, the server's message and the SQL")
    func errorDetails() throws {
        let db = try Self.database()
        try db.create(Course.self)
        try db.table(Course.self).insert(Course(id: 1, title: "a"))
        let error = #expect(throws: CRUDSQLExeError.self) { try db.table(Course.self).insert(Course(id: 1, title: "b")) }
        #expect(error?.code == "23505")
        #expect(error?.databaseMessage?.contains("duplicate key value violates unique constraint") == true)
        #expect(error?.sql == #"INSERT INTO "Course" ("id", "title") VALUES ($1, $2)"#)
    }

    @Test("transactionPooling: statements are never prepared under a name, a result's new column types are read, lastInsertId needs the transaction; not with serverConnections")
    func transactionPooling() throws {
        let server = try Self.server()
        let parameters = try server.freshParameters()
        let db = Database(configuration: try PostgresDatabaseConfiguration(parameters: parameters, pool: .init(maximumConnections: 1),
                                                                            transactionPooling: true))
        try db.create(Course.self)
        try db.table(Course.self).insert((1 ... 3).map { Course(id: $0, title: "course \($0)") })
        for id in 1 ... 3 { #expect(try db.table(Course.self).where(\Course.id == id).first()?.title == "course \(id)") }
        // The pool's one session ran all of these: a named statement would be listed on its server session.
        #expect(try db.sql("SELECT count(*)::bigint AS value FROM pg_prepared_statements", ConnectionNumber.self)[0].value == 0)

        // The same SQL, its result's column retyped in between: a prepared statement would be refused
        // ("cached plan must not change result type"); an unnamed one is planned anew and read as it is.
        try db.sql("CREATE TABLE \(db.quote("ConnectionNumber")) (value integer)")
        try db.sql("INSERT INTO \(db.quote("ConnectionNumber")) VALUES (41)")
        #expect(try db.table(ConnectionNumber.self).select().map(\.value) == [41])
        try db.sql("ALTER TABLE \(db.quote("ConnectionNumber")) ALTER COLUMN value TYPE bigint")
        try db.sql("UPDATE \(db.quote("ConnectionNumber")) SET value = 5000000000")
        #expect(try db.table(ConnectionNumber.self).select().map(\.value) == [5_000_000_000])

        let outside = #expect(throws: CRUDSQLExeError.self) { try db.table(Course.self).insert(Course(id: 4, title: "d")).lastInsertId() }
        #expect(outside?.msg.contains("behind a transaction pooler") == true)
        try db.create(Bicycle.self)
        let inside = try db.transaction { try db.table(Bicycle.self).insert(Bicycle(id: nil, name: "a", color: "b"), ignoreKeys: \.id).lastInsertId() }
        #expect(inside == 1, "inside the inserting transaction lastval() is this session's")
        try db.shutdown()

        let both = #expect(throws: CRUDSQLExeError.self) {
            try PostgresDatabaseConfiguration(parameters: parameters, serverConnections: 2, transactionPooling: true)
        }
        #expect(both?.msg.contains("cannot go together") == true)
    }

    @Test("lastInsertId is lastval(): nil before any identity value, the last one after, and harmless in a transaction")
    func lastInsertId() throws {
        let db = try Self.database()
        try db.create(Course.self)
        #expect(try Backend.postgres.insertId(on: db) { try db.table(Course.self).insert(Course(id: 5, title: "explicit")).lastInsertId() } == nil)
        try db.create(Bicycle.self)
        try db.transaction {
            #expect(try db.table(Course.self).insert(Course(id: 6, title: "still none")).lastInsertId() == nil)
            #expect(try db.table(Bicycle.self).insert(Bicycle(id: nil, name: "a", color: "b"), ignoreKeys: \.id).lastInsertId() == 1)
            try db.table(Course.self).insert(Course(id: 7, title: "the transaction goes on"))
        }
        #expect(try db.table(Course.self).count() == 3)
    }

    @Test("a batch insert sends up to 1,000 rows per statement")
    func batchInsert() throws {
        let db = try Self.database()
        try db.create(Course.self)
        try db.table(Course.self).insert((1 ... 2_500).map { Course(id: $0, title: "c\($0)") })
        #expect(try db.table(Course.self).count() == 2_500)
        #expect(try db.table(Course.self).order(descending: \.id).first()?.title == "c2500")
        #expect(PostgresDialect().rowsPerInsert(columns: 2) == 1_000)
        #expect(PostgresDialect().rowsPerInsert(columns: 300) == 218)
    }

    @Test("a restarted server: the next call fails clearly, the one after works again", .timeLimit(.minutes(3)))
    func reconnect() async throws {
        try await offCooperativePool {
            _ = try Self.server()
            // A cluster of its own, so restarting it disturbs no other test.
            let cluster = try PostgresCluster.start()
            defer { cluster.stop() }
            let db = try cluster.database()
            try db.create(Course.self)
            try db.table(Course.self).insert(Course(id: 1, title: "before"))
            try cluster.control("restart")
            var visited = 0
            let error = #expect(throws: CRUDSQLExeError.self, "a plain for-in over the first query after a restart throws, never stops the program") {
                for _ in try db.table(Course.self).select() { visited += 1 }
            }
            #expect(visited == 0)
            #expect(error?.msg.contains("lost the connection to PostgreSQL") == true)
            #expect(try db.table(Course.self).count() == 1)
            try db.table(Course.self).insert(Course(id: 2, title: "after"))
            #expect(try db.table(Course.self).order(by: \.id).select().map(\.title) == ["before", "after"])
        }
    }

    @Test("a connection lost inside a transaction whose body catches: every later call in it throws, the transaction throws, nothing is committed",
          .timeLimit(.minutes(3)))
    func lostInsideTransaction() async throws {
        try await offCooperativePool {
            _ = try Self.server()
            let cluster = try PostgresCluster.start()
            defer { cluster.stop() }
            let db = try cluster.database()
            try db.create(Course.self)
            try db.table(Course.self).insert(Course(id: 100, title: "before"))

            var caught: [String] = []
            var thrown: CRUDSQLExeError?
            do {
                try db.transaction {
                    try db.table(Course.self).insert([Course(id: 1, title: "a"), Course(id: 2, title: "b")])
                    try cluster.control("restart")
                    for id in 3 ... 4 {
                        do {
                            try db.table(Course.self).insert(Course(id: id, title: "after the drop"))
                        } catch let error as CRUDSQLExeError {
                            caught.append(error.msg)
                        }
                    }
                    do {
                        try db.transaction { try db.table(Course.self).insert(Course(id: 5, title: "nested")) }
                    } catch let error as CRUDSQLExeError {
                        caught.append(error.msg)
                    }
                    do {
                        caught.append("count returned \(try db.table(Course.self).count())")
                    } catch let error as CRUDSQLExeError {
                        caught.append(error.msg)
                    }
                }
            } catch let error as CRUDSQLExeError {
                thrown = error
            }
            #expect(caught.count == 4 && !caught.contains { $0.hasPrefix("count returned") }, "each call after the drop threw: \(caught)")
            #expect(caught.first?.contains("lost the connection to PostgreSQL") == true)
            #expect(caught.dropFirst().allSatisfy { $0.contains("the transaction is no longer open") || $0.contains("inside a transaction") }, "\(caught)")
            #expect(thrown?.msg.contains("no longer open") == true || thrown?.msg.contains("inside a transaction") == true, "\(String(describing: thrown))")
            #expect(try db.table(Course.self).order(by: \.id).select().map(\.id) == [100], "nothing of the transaction is stored, before or after the drop")
            try db.transaction { try db.table(Course.self).insert(Course(id: 6, title: "next")) }
            #expect(try db.table(Course.self).order(by: \.id).select().map(\.id) == [6, 100], "the next transaction runs on a new connection")
        }
    }

    @Test("a failed statement whose error the body catches aborts the transaction: it throws, nothing is committed")
    func abortedTransaction() throws {
        let db = try Self.database()
        try db.create(Course.self)
        var duplicateFailed = false
        let thrown = #expect(throws: CRUDSQLExeError.self) {
            try db.transaction {
                try db.table(Course.self).insert(Course(id: 1, title: "a"))
                do { try db.table(Course.self).insert(Course(id: 1, title: "duplicate")) } catch is CRUDSQLExeError { duplicateFailed = true }
            }
        }
        #expect(duplicateFailed)
        #expect(thrown?.msg.contains("aborted by a failed statement") == true)
        #expect(try db.table(Course.self).count() == 0)
        try db.transaction {
            try db.table(Course.self).insert(Course(id: 1, title: "a"))
            do {
                try db.transaction { try db.table(Course.self).insert(Course(id: 1, title: "duplicate")) }
                Issue.record("the duplicate was inserted")
            } catch is CRUDSQLExeError {}
            try db.table(Course.self).insert(Course(id: 2, title: "b"))
        }
        #expect(try db.table(Course.self).order(by: \.id).select().map(\.id) == [1, 2], "a nested transaction is the way to go on after a failure")
    }

    @Test("an exhausted pool makes the next caller wait, then fail with a clear timeout error; a freed connection serves it")
    func poolExhaustion() async throws {
        let configuration = try Self.server().freshConfiguration(pool: PostgresPoolOptions(maximumConnections: 2, timeout: .milliseconds(300)))
        let db = Database(configuration: configuration)
        try await db.create(Course.self)
        try await db.table(Course.self).insert((1 ... 3).map { Course(id: $0, title: "c\($0)") })
        let first = try db.table(Course.self).cursor()
        let second = try db.table(Course.self).cursor()
        #expect(try first.next() != nil && second.next() != nil, "each open cursor holds one of the two connections")
        let clock = ContinuousClock()
        var error: CRUDSQLExeError?
        let waited = await clock.measure {
            error = await #expect(throws: CRUDSQLExeError.self) { try await db.table(Course.self).count() }
        }
        #expect(error?.msg.contains("timed out after") == true && error?.msg.contains("all 2 of the pool are in use") == true, "\(String(describing: error))")
        // Bounded, not timed: under a loaded machine the wake-up itself can take seconds.
        #expect(waited >= .milliseconds(250) && waited < .seconds(30), "\(waited)")
        // The cursors were opened in this task, which may hold them across its awaits: a synchronous
        // call here must not wait for them (it would block a thread the task needs), and says so.
        let refused = #expect(throws: CRUDSQLExeError.self) { try db.withConnection { _ in } }
        #expect(refused?.msg.contains("use the async form") == true && refused?.kind == .busyOrLocked, "\(String(describing: refused))")
        // Outside any task, a synchronous call waits, then times out.
        let blocking = await #expect(throws: CRUDSQLExeError.self) { try await onThread { try db.withConnection { _ in } } }
        #expect(blocking?.msg.contains("timed out after") == true && blocking?.kind == .busyOrLocked)
        while try first.next() != nil {}
        #expect(try await db.table(Course.self).count() == 3, "the connection the finished cursor gave back serves the next call")
        _ = second
    }
}
