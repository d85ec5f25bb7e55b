import Foundation
import Testing

@Suite("crud-demo")
struct DemoTests {
    static func runDemo(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try BuiltProgram("crud-demo").run(arguments)
    }

    static func expectWalkThrough(_ output: String) {
        #expect(output.contains("Beru Lars: 555-555-1212 (planet 12)\nOwen Lars: 555-555-1212 (planet 12)"))
        #expect(output.contains("Beru: 165.0 cm, Luke: 172.0 cm, Owen: 178.0 cm"))
        #expect(output.contains("numbers left after deleting planet 15's: 2"))
        #expect(output.contains("Person rows with lastName Lars: [\"Beru\", \"Owen\"]"))
    }

    @Test("the demo runs on PostgreSQL given a connection URL", .enabled(if: !PostgresTestServer.isSkipped, "CRUD_SKIP_POSTGRES=1"))
    func postgresDemo() throws {
        let server = try PostgresTestServer.shared.get()
        let database = "crud_demo_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try server.createDatabase(database)
        let url = server.cluster.map { "postgresql://postgres:\(PostgresCluster.password)@127.0.0.1:\($0.port)/\(database)" }
            ?? "postgresql:///\(database)"
        let (status, output) = try Self.runDemo(["--postgres", url])
        #expect(status == 0, "\(output)")
        #expect(output.contains("PostgreSQL database \"\(database)\""))
        Self.expectWalkThrough(output)
    }

    #if MySQL
    @Test("the demo runs on MySQL given a mysql:// URL", .enabled(if: !MariaDBTestServer.isSkipped, "CRUD_SKIP_MYSQL=1"))
    func mysqlDemo() throws {
        let server = try MariaDBTestServer.shared.get()
        let mariadb = try #require(server.server, "needs the throwaway server, whose address and password the test knows")
        let database = try server.freshConfiguration().target.split(separator: "\"")[1]
        let url = "mysql://\(MariaDBTestServer.user):\(MariaDBTestServer.password)@127.0.0.1:\(mariadb.port)/\(database)"
        let (status, output) = try Self.runDemo(["--mysql", url])
        #expect(status == 0, "\(output)")
        #expect(output.contains("MySQL database \"\(database)\""))
        Self.expectWalkThrough(output)
    }
    #endif

    @Test("the demo runs on SQLite and prints its walk-through")
    func demo() throws {
        let (status, output) = try Self.runDemo([])
        #expect(status == 0, "\(output)")
        Self.expectWalkThrough(output)
    }

    @Test("bad arguments print the usage")
    func usage() throws {
        let (status, output) = try Self.runDemo(["--postgres"])
        #expect(status == 2)
        #expect(output.contains("USAGE: crud-demo [--postgres"))
    }
}
