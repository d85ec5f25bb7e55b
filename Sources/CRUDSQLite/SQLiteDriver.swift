@_spi(CRUDDriver) import CRUD

extension CRUDDriver {
    /// SQLite, for `AnyDatabase(url:drivers:)`: `sqlite:todos.db` (a path relative to the working
    /// directory), `sqlite:///var/lib/app/todos.db` (an absolute path), `sqlite::memory:`, or
    /// `sqlite:file:…` (an SQLite URI), opened as `SQLiteDatabaseConfiguration` opens its path.
    /// The options of `SQLiteDatabaseConfiguration.init(_:busyTimeout:maxReaders:statementTimeout:exclusiveToProcess:)`
    /// go in the URL's query: `sqlite:todos.db?exclusiveToProcess=true&busyTimeout=5s&maxReaders=4&statementTimeout=10s`
    /// (durations as `250ms`, `10s`, `2m`); an SQLite URI keeps its own query items beside them.
    public static var sqlite: CRUDDriver { sqlite() }

    /// SQLite with the options of `SQLiteDatabaseConfiguration.init(_:busyTimeout:maxReaders:statementTimeout:exclusiveToProcess:)`,
    /// which the URL's query items of the same names replace.
    public static func sqlite(busyTimeout: Duration = .seconds(5), maxReaders: Int = 4, statementTimeout: Duration? = nil,
                              exclusiveToProcess: Bool = false) -> CRUDDriver {
        CRUDDriver(schemes: ["sqlite"]) { url in
            let options = try CRUDURLOptions(url, taking: ["busyTimeout", "maxReaders", "statementTimeout", "exclusiveToProcess"])
            let path = try SQLiteDatabaseConfiguration.path(ofURL: options.url)
            return try SQLiteDatabaseConfiguration(path, busyTimeout: options.duration("busyTimeout") ?? busyTimeout,
                                                   maxReaders: options.int("maxReaders") ?? maxReaders,
                                                   statementTimeout: options.has("statementTimeout") ? options.duration("statementTimeout") : statementTimeout,
                                                   exclusiveToProcess: options.bool("exclusiveToProcess") ?? exclusiveToProcess)
        }
    }
}

extension SQLiteDatabaseConfiguration {
    /// The path (or `file:` URI, or `:memory:`) a `sqlite:` URL names, its CRUD options taken out.
    static func path(ofURL url: String) throws -> String {
        var path = Substring(url.drop { $0 != ":" }.dropFirst())
        if path.hasPrefix("//") { path = path.dropFirst(2) }
        guard !path.isEmpty else {
            throw CRUDSQLGenError("the sqlite: URL names no database: write sqlite:todos.db, sqlite:///absolute/path.db or sqlite::memory:")
        }
        // A plain path takes no query of its own: what is left there is a misspelled option.
        if !path.hasPrefix("file:"), let mark = path.firstIndex(of: "?") {
            throw CRUDSQLGenError("the sqlite: URL's query has \(path[path.index(after: mark)...]), which is none of its options "
                + "(busyTimeout, maxReaders, statementTimeout, exclusiveToProcess)")
        }
        return String(path)
    }
}
