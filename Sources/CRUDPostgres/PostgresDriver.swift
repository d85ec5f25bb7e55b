@_spi(CRUDDriver) import CRUD

extension CRUDDriver {
    /// PostgreSQL, for `AnyDatabase(url:drivers:)`: `postgres://user:password@host:port/database?options…`
    /// (or `postgresql://`), opened as `PostgresDatabaseConfiguration(url:)` opens it. Besides
    /// libpq's own query items (`sslmode`, `connect_timeout`, `target_session_attrs`, …), the URL
    /// takes CRUD's options: the pool's (`minimumConnections`, `maximumConnections`, `poolTimeout`,
    /// `connectsOnFirstUse`, `connectRetry`, `statementTimeout`; durations as `250ms`, `10s`, `2m`),
    /// and `serverConnections`, `transactionPooling` and `readsFromStandbys` (with several hosts:
    /// `postgres://primary,standby1,standby2/app?readsFromStandbys=true`).
    public static var postgres: CRUDDriver { postgres() }

    /// PostgreSQL with the options of `PostgresDatabaseConfiguration(url:connectTimeout:pool:serverConnections:transactionPooling:readsFromStandbys:)`,
    /// which the URL's query items of the same names replace.
    public static func postgres(connectTimeout: Int = 10, pool: PostgresPoolOptions = .init(), serverConnections: Int? = nil,
                                transactionPooling: Bool = false, readsFromStandbys: Bool = false) -> CRUDDriver {
        CRUDDriver(schemes: ["postgres", "postgresql"]) { url in
            let options = try CRUDURLOptions(url, taking: CRUDURLOptions.poolNames.union(["serverConnections", "transactionPooling", "readsFromStandbys"]))
            return try PostgresDatabaseConfiguration(url: options.url, connectTimeout: connectTimeout, pool: options.pool(pool),
                                                     serverConnections: options.int("serverConnections") ?? serverConnections,
                                                     transactionPooling: options.bool("transactionPooling") ?? transactionPooling,
                                                     readsFromStandbys: options.bool("readsFromStandbys") ?? readsFromStandbys)
        }
    }
}
