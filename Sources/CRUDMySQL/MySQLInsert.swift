#if MySQL
@_spi(CRUDDriver) import CRUD

extension Insert {
    /// The `AUTO_INCREMENT` value of the last row this insert wrote, unsigned as MySQL reports it
    /// (Perfect-CRUD's MySQL form); `nil` when the table has none.
    /// - Throws: `CRUDSQLExeError` when the connection has run other statements since the insert,
    ///   or when the server may have given a multi-row insert ids that are not consecutive.
    public func lastInsertId<Model>() throws -> UInt64? where Parent == Table<Model, Database<MySQLDatabaseConfiguration>> {
        let id: Int? = try lastInsertId()
        return id.map { UInt64(bitPattern: Int64($0)) }
    }
}
#endif
