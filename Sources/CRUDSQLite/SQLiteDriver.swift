@_spi(CRUDDriver) import CRUD

extension CRUDDriver {
    /// SQLite, for `AnyDatabase(url:drivers:)`: `sqlite:todos.db` (a path relative to the working
    /// directory), `sqlite:///var/lib/app/todos.db` (an absolute path), `sqlite::memory:`, or
    /// `sqlite:file:…` (an SQLite URI), opened as `SQLiteDatabaseConfiguration` opens its path.
    public static var sqlite: CRUDDriver { sqlite() }

    /// SQLite with the options of `SQLiteDatabaseConfiguration.init(_:busyTimeout:maxReaders:statementTimeout:)`.
    public static func sqlite(busyTimeout: Duration = .seconds(5), maxReaders: Int = 4, statementTimeout: Duration? = nil) -> CRUDDriver {
        CRUDDriver(schemes: ["sqlite"]) { url in
            try SQLiteDatabaseConfiguration(SQLiteDatabaseConfiguration.path(ofURL: url), busyTimeout: busyTimeout, maxReaders: maxReaders,
                                            statementTimeout: statementTimeout)
        }
    }
}

extension SQLiteDatabaseConfiguration {
    /// The path (or `file:` URI, or `:memory:`) a `sqlite:` URL names.
    static func path(ofURL url: String) throws -> String {
        var path = Substring(url.drop { $0 != ":" }.dropFirst())
        if path.hasPrefix("//") { path = path.dropFirst(2) }
        guard !path.isEmpty else {
            throw CRUDSQLGenError("the sqlite: URL names no database: write sqlite:todos.db, sqlite:///absolute/path.db or sqlite::memory:")
        }
        return String(path)
    }
}
