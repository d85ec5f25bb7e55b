@_spi(CRUDDriver) import CRUD

extension CRUDDriver {
    /// PostgreSQL, for `AnyDatabase(url:drivers:)`: `postgres://user:password@host:port/database?options…`
    /// (or `postgresql://`), opened as `PostgresDatabaseConfiguration(url:)` opens it.
    public static var postgres: CRUDDriver { postgres() }

    /// PostgreSQL with the options of `PostgresDatabaseConfiguration(url:connectTimeout:pool:)`.
    public static func postgres(connectTimeout: Int = 10, pool: PostgresPoolOptions = .init()) -> CRUDDriver {
        CRUDDriver(schemes: ["postgres", "postgresql"]) { url in
            try PostgresDatabaseConfiguration(url: url, connectTimeout: connectTimeout, pool: pool)
        }
    }
}
