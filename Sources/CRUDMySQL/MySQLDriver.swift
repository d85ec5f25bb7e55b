#if MySQL
@_spi(CRUDDriver) import CRUD

extension CRUDDriver {
    /// MySQL or MariaDB, for `AnyDatabase(url:drivers:)`: `mysql://user:password@host:port/database`
    /// (or `mariadb://`, or with `?socket=/path`), opened as `MySQLDatabaseConfiguration(url:)` opens it.
    public static var mysql: CRUDDriver { mysql() }

    /// MySQL or MariaDB with the options of `MySQLDatabaseConfiguration(url:connectTimeout:pool:)`.
    public static func mysql(connectTimeout: Int = 10, pool: MySQLPoolOptions = .init()) -> CRUDDriver {
        CRUDDriver(schemes: ["mysql", "mariadb"]) { url in
            try MySQLDatabaseConfiguration(url: url, connectTimeout: connectTimeout, pool: pool)
        }
    }
}
#endif
