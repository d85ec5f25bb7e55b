/// A connection of any driver behind one type: the connection of `AnyDatabaseConfiguration`, so
/// that one `Database` type serves whichever database a program picks at start. It forwards every
/// call to the driver's connection, and wraps the statements it prepares in `AnyCRUDStatement`.
@_documentation(visibility: internal)
public final class AnyCRUDConnection: CRUDConnection {
    public typealias Statement = AnyCRUDStatement

    /// The driver's connection.
    let base: any CRUDConnection

    init(_ base: any CRUDConnection) {
        self.base = base
    }

    public var dialect: any CRUDDialect { base.dialect }
    @_spi(CRUDDriver) public var isUsable: Bool { base.isUsable }
    @_spi(CRUDDriver) public var wantsReplacing: Bool { base.wantsReplacing }
    @_spi(CRUDDriver) public func reconnect() throws { try base.reconnect() }
    @_spi(CRUDDriver) public nonisolated(nonsending) func reconnectAwaiting() async throws { try await base.reconnectAwaiting() }
    @_spi(CRUDDriver) public func takeOpeningStatements() -> [String] { base.takeOpeningStatements() }
    @_spi(CRUDDriver) public var transactionStatus: CRUDTransactionStatus { base.transactionStatus }
    @_spi(CRUDDriver) public func prepare(_ sql: String) throws -> AnyCRUDStatement { AnyCRUDStatement(try base.prepare(sql)) }
    @_spi(CRUDDriver) public func release(_ statement: AnyCRUDStatement) { base.erasedRelease(statement) }
    @_spi(CRUDDriver) public func execute(_ sql: String) throws { try base.execute(sql) }
    public func prepareOwned(_ sql: String) throws -> AnyCRUDStatement { AnyCRUDStatement(try base.prepareOwned(sql)) }
    public func discard(_ statement: AnyCRUDStatement) { base.erasedDiscard(statement) }
    @_spi(CRUDDriver) public func recordChanges(into recorder: CRUDChangeRecorder) -> Bool { base.recordChanges(into: recorder) }
    @_spi(CRUDDriver) public func probe() { base.probe() }
    @_spi(CRUDDriver) public nonisolated(nonsending) func probeAwaiting() async { await base.probeAwaiting() }
    @_spi(CRUDDriver) public func keepingServerSession<T>(_ body: () throws -> T) throws -> T { try base.keepingServerSession(body) }
    @_spi(CRUDDriver) public func interrupt() { base.interrupt() }
    @_spi(CRUDDriver) public func interruptEnded() { base.interruptEnded() }
    @_spi(CRUDDriver) public var runsOnCallersThread: Bool { base.runsOnCallersThread }
    @_spi(CRUDDriver) public var executesWithoutBlocking: Bool { base.executesWithoutBlocking }
    @_spi(CRUDDriver) public nonisolated(nonsending) func execute(_ statement: AnyCRUDStatement, reading: Bool) async throws {
        try await base.erasedExecute(statement, reading: reading)
    }
    @_spi(CRUDDriver) public nonisolated(nonsending) func execute(_ sql: String) async throws { try await base.execute(sql) }
    @_spi(CRUDDriver) public nonisolated(nonsending) func prepareAwaiting(_ sql: String) async throws -> AnyCRUDStatement {
        AnyCRUDStatement(try await base.prepareAwaiting(sql))
    }
    @_spi(CRUDDriver) public nonisolated(nonsending) func prepareOwnedAwaiting(_ sql: String) async throws -> AnyCRUDStatement {
        AnyCRUDStatement(try await base.prepareOwnedAwaiting(sql))
    }
    @_spi(CRUDDriver) public func beginCallersWork(bounded: Bool) { base.beginCallersWork(bounded: bounded) }
    @_spi(CRUDDriver) public func endCallersWork() -> Bool { base.endCallersWork() }
    public func insertReturned(id: Int64) { base.insertReturned(id: id) }

    @_spi(CRUDDriver) public func lastInsertId(using runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws -> Int? {
        try base.erasedLastInsertId(runner)
    }

    @_spi(CRUDDriver) public func columns(ofTable table: String, using runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws
        -> [CRUDDatabaseColumn]? {
        try base.erasedColumns(table, runner)
    }

    @_spi(CRUDDriver) public func withForeignKeysOff<T>(using runner: some CRUDCatalogRunner<AnyCRUDStatement>, _ body: () throws -> T) throws -> T {
        try base.erasedWithForeignKeysOff(runner, body)
    }

    @_spi(CRUDDriver) public func dropRunsForeignKeyActions(using runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws -> Bool {
        try base.erasedDropRunsForeignKeyActions(runner)
    }

    @_spi(CRUDDriver) public func checkForeignKeys(using runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws {
        try base.erasedCheckForeignKeys(runner)
    }

    @_spi(CRUDDriver) public func indexes(ofTable table: String, using runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws
        -> [(name: String, sql: String, columns: [String])] {
        try base.erasedIndexes(table, runner)
    }

    @_spi(CRUDDriver) public func tableDefinition(ofTable table: String, using runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws -> String? {
        try base.erasedTableDefinition(table, runner)
    }

    @_spi(CRUDDriver) public func keyCounter(ofTable table: String, using runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws -> Int64? {
        try base.erasedKeyCounter(table, runner)
    }

    @_spi(CRUDDriver) public func raiseKeyCounter(ofTable table: String, to value: Int64,
                                                  using runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws {
        try base.erasedRaiseKeyCounter(table, value, runner)
    }

    @_spi(CRUDDriver) public func constraintNames(ofTable table: String, using runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws -> Set<String> {
        try base.erasedConstraintNames(table, runner)
    }
}

/// The library's runner of catalog statements on an `AnyCRUDConnection`, as the runner of the
/// driver connection's own statements that the driver's catalog reads take: they still run
/// through the session, logged and timed.
struct CRUDErasedRunner<Outer: CRUDCatalogRunner<AnyCRUDStatement>, Statement: CRUDStatement>: CRUDCatalogRunner {
    let outer: Outer

    init(_ outer: Outer) {
        self.outer = outer
    }

    func forEachRow(_ sql: String, _ parameters: [CRUDDatabaseValue], _ row: (Statement) throws -> Void) throws {
        try outer.forEachRow(sql, parameters) { statement in
            // The connection prepared it from the driver's connection, whose statements are these.
            guard let driverStatement = statement.base as? Statement else {
                throw CRUDSQLExeError("a catalog read got a statement of \(type(of: statement.base)), not of \(Statement.self)", sql: sql)
            }
            try row(driverStatement)
        }
    }

    func execute(_ sql: String) throws {
        try outer.execute(sql)
    }
}

// Called on `any CRUDConnection`, these open it: inside, the driver's statement type is known.
extension CRUDConnection {
    fileprivate func erasedRelease(_ statement: AnyCRUDStatement) {
        if let statement = statement.base as? Statement { release(statement) }
    }

    fileprivate func erasedDiscard(_ statement: AnyCRUDStatement) {
        if let statement = statement.base as? Statement { discard(statement) }
    }

    fileprivate nonisolated(nonsending) func erasedExecute(_ statement: AnyCRUDStatement, reading: Bool) async throws {
        guard let statement = statement.base as? Statement else {
            throw CRUDSQLExeError("\(Self.self) was given a statement of \(type(of: statement.base)) to run", sql: statement.sql)
        }
        try await execute(statement, reading: reading)
    }

    fileprivate func erasedLastInsertId(_ runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws -> Int? {
        try lastInsertId(using: CRUDErasedRunner<_, Statement>(runner))
    }

    fileprivate func erasedColumns(_ table: String, _ runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws -> [CRUDDatabaseColumn]? {
        try columns(ofTable: table, using: CRUDErasedRunner<_, Statement>(runner))
    }

    fileprivate func erasedWithForeignKeysOff<T>(_ runner: some CRUDCatalogRunner<AnyCRUDStatement>, _ body: () throws -> T) throws -> T {
        try withForeignKeysOff(using: CRUDErasedRunner<_, Statement>(runner), body)
    }

    fileprivate func erasedDropRunsForeignKeyActions(_ runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws -> Bool {
        try dropRunsForeignKeyActions(using: CRUDErasedRunner<_, Statement>(runner))
    }

    fileprivate func erasedCheckForeignKeys(_ runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws {
        try checkForeignKeys(using: CRUDErasedRunner<_, Statement>(runner))
    }

    fileprivate func erasedIndexes(_ table: String, _ runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws -> [(name: String, sql: String, columns: [String])] {
        try indexes(ofTable: table, using: CRUDErasedRunner<_, Statement>(runner))
    }

    fileprivate func erasedTableDefinition(_ table: String, _ runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws -> String? {
        try tableDefinition(ofTable: table, using: CRUDErasedRunner<_, Statement>(runner))
    }

    fileprivate func erasedKeyCounter(_ table: String, _ runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws -> Int64? {
        try keyCounter(ofTable: table, using: CRUDErasedRunner<_, Statement>(runner))
    }

    fileprivate func erasedRaiseKeyCounter(_ table: String, _ value: Int64, _ runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws {
        try raiseKeyCounter(ofTable: table, to: value, using: CRUDErasedRunner<_, Statement>(runner))
    }

    fileprivate func erasedConstraintNames(_ table: String, _ runner: some CRUDCatalogRunner<AnyCRUDStatement>) throws -> Set<String> {
        try constraintNames(ofTable: table, using: CRUDErasedRunner<_, Statement>(runner))
    }
}
