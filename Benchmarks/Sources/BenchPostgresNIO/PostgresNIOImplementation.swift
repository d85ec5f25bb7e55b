import BenchCore
import Foundation
import Logging
import PostgresNIO

/// The lookup as PostgresNIO's users write a repeated query: a prepared statement, with the row
/// decoded into a tuple.
struct LookupStatement: PostgresPreparedStatement {
    static let sql = #"SELECT "id", "name", "score", "flag", "createdAt", "note" FROM items WHERE id = $1"#
    typealias Row = (Int64, String, Double, Bool, Date, String?)

    let id: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(id)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}

/// PostgresNIO, the server ecosystem's PostgreSQL client in Swift on SwiftNIO: one `PostgresClient`
/// (its own pool, its own event loops), used from tasks as its documentation shows. `path` is the
/// same connection URL the other implementations take.
public final class PostgresNIOImplementation: BenchServerImplementation, BenchConcurrentImplementation {
    private let client: PostgresClient
    private let running: Task<Void, Never>

    public init(path: String) throws {
        guard let url = URLComponents(string: path), let host = url.host else { throw PostgresNIOBenchError("not a URL: \(path)") }
        var configuration = PostgresClient.Configuration(host: host, port: url.port ?? 5432, username: url.user ?? "postgres",
                                                         password: url.password, database: String(url.path.dropFirst()), tls: .disable)
        // The schema the URL names in its options (`-csearch_path=…`), as a startup parameter.
        if let options = url.queryItems?.first(where: { $0.name == "options" })?.value, options.hasPrefix("-csearch_path=") {
            configuration.options.additionalStartupParameters = [("search_path", String(options.dropFirst("-csearch_path=".count)))]
        }
        // As many connections as CRUD's pool allows by default.
        configuration.options.maximumConnections = 8
        let client = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        self.client = client
        running = Task { await client.run() }
    }

    deinit {
        running.cancel()
    }

    private static func add(_ row: LookupStatement.Row, to checksum: inout Checksum) {
        checksum.add(id: row.0, name: row.1, score: row.2, flag: row.3, createdAt: row.4, note: row.5)
    }

    /// Inserts `items` in one transaction, 1,000 rows a statement as raw libpq does.
    private static func insert(_ items: ArraySlice<ItemData>, on connection: PostgresConnection) async throws {
        var start = items.startIndex
        while start < items.endIndex {
            let chunk = items[start ..< min(start + 1_000, items.endIndex)]
            var bindings = PostgresBindings()
            var tuples: [String] = []
            for (row, item) in chunk.enumerated() {
                tuples.append("(" + (1 ... 6).map { "$\(row * 6 + $0)" }.joined(separator: ", ") + ")")
                bindings.append(item.id)
                bindings.append(item.name)
                bindings.append(item.score)
                bindings.append(item.flag)
                bindings.append(item.createdAt)
                bindings.append(item.note)
            }
            let sql = #"INSERT INTO items ("id", "name", "score", "flag", "createdAt", "note") VALUES "# + tuples.joined(separator: ", ")
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: quiet)
            start = chunk.endIndex
        }
    }

    public func insert(_ items: [ItemData]) throws {
        let client = self.client
        try waitFor {
            try await client.withTransaction(logger: quiet) { connection in try await Self.insert(items[...], on: connection) }
        }
    }

    public func fetchAll() throws -> Checksum {
        let client = self.client
        return try waitFor {
            var checksum = Checksum()
            let rows = try await client.query(#"SELECT "id", "name", "score", "flag", "createdAt", "note" FROM items"#)
            for try await row in rows.decode(LookupStatement.Row.self) { Self.add(row, to: &checksum) }
            return checksum
        }
    }

    private static func lookup(_ ids: [Int64], on client: PostgresClient) async throws -> Checksum {
        var checksum = Checksum()
        for id in ids {
            for try await row in try await client.execute(LookupStatement(id: id)) { add(row, to: &checksum) }
        }
        return checksum
    }

    public func lookup(_ ids: [Int64]) throws -> Checksum {
        let client = self.client
        return try waitFor { try await Self.lookup(ids, on: client) }
    }

    public func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum {
        let client = self.client
        return try FromTasks.lookups(slices) { slice in try await Self.lookup(slice, on: client) }
    }

    public func concurrentInserts(_ slices: [[ItemData]]) throws {
        let client = self.client
        try FromTasks.inserts(slices) { chunk in
            try await client.withTransaction(logger: quiet) { connection in try await Self.insert(chunk, on: connection) }
        }
    }
}

private let quiet = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

struct PostgresNIOBenchError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
