#if MySQL
@_spi(CRUDDriver) import CRUD

extension CRUDDriver {
    /// MySQL or MariaDB, for `AnyDatabase(url:drivers:)`: `mysql://user:password@host:port/database`
    /// (or `mariadb://`; several servers as `host1:3306,host2:3306`; or with `?socket=/path`), opened
    /// as `MySQLDatabaseConfiguration(url:)` opens it. The URL's query also takes `connectTimeout`
    /// (seconds) and the pool's options (`minimumConnections`, `maximumConnections`, `poolTimeout`,
    /// `connectsOnFirstUse`, `connectRetry`, `statementTimeout`; durations as `250ms`, `10s`, `2m`).
    public static var mysql: CRUDDriver { mysql() }

    /// MySQL or MariaDB with the options of `MySQLDatabaseConfiguration(url:connectTimeout:pool:)`,
    /// which the URL's query items of the same names replace.
    public static func mysql(connectTimeout: Int = 10, pool: MySQLPoolOptions = .init()) -> CRUDDriver {
        CRUDDriver(schemes: ["mysql", "mariadb"]) { url in
            let options = try CRUDURLOptions(url, taking: CRUDURLOptions.poolNames.union(["connectTimeout"]))
            return try MySQLDatabaseConfiguration(url: options.url, connectTimeout: options.int("connectTimeout") ?? connectTimeout,
                                                  pool: options.pool(pool))
        }
    }
}
#endif
