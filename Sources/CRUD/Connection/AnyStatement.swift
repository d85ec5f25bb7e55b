import Foundation

/// A statement of any driver behind one type: what `AnyCRUDConnection` prepares. Each call goes
/// through the driver statement's witness table, the cost of choosing the database at run time.
@_documentation(visibility: internal)
public final class AnyCRUDStatement: CRUDStatement {
    /// The driver's statement, which reads and steps go to.
    let base: any CRUDStatement
    /// The same statement for binds, which are `mutating` (for value types) and so need a `var`.
    /// Never replaced, so the calls skip the exclusivity check, which would cost more than they do;
    /// reads go through `base`, whose calls the optimizer keeps cheaper still.
    @exclusivity(unchecked) private var binder: any CRUDStatement

    init(_ base: any CRUDStatement) {
        self.base = base
        binder = base
    }

    @_spi(CRUDDriver) public var sql: String { base.sql }
    public func step() throws -> Bool { try base.step() }
    @_spi(CRUDDriver) public var resultColumnCount: Int { base.resultColumnCount }
    @_spi(CRUDDriver) public func resultColumnName(_ column: Int) -> String { base.resultColumnName(column) }
    public func reset() throws { try base.reset() }
    public var changedRows: Int { base.changedRows }

    public func bindNull(at position: Int) throws { try binder.bindNull(at: position) }
    public func bindInt64(_ value: Int64, at position: Int) throws { try binder.bindInt64(value, at: position) }
    public func bindReal(_ value: Double, at position: Int) throws { try binder.bindReal(value, at: position) }
    public func bindText(_ value: String, at position: Int) throws { try binder.bindText(value, at: position) }
    public func bindBlob(_ value: [UInt8], at position: Int) throws { try binder.bindBlob(value, at: position) }
    public func bindData(_ value: Data, at position: Int) throws { try binder.bindData(value, at: position) }
    public func bindBool(_ value: Bool, at position: Int) throws { try binder.bindBool(value, at: position) }
    public func bindDate(_ value: Date, at position: Int) throws { try binder.bindDate(value, at: position) }
    public func bindUUID(_ value: UUID, at position: Int) throws { try binder.bindUUID(value, at: position) }

    public func isNull(_ column: Int) -> Bool { base.isNull(column) }
    public func readInt64(_ column: Int) throws -> Int64 { try base.readInt64(column) }
    public func readReal(_ column: Int) throws -> Double { try base.readReal(column) }
    public func readText(_ column: Int) throws -> String { try base.readText(column) }
    public func withTextBytes<T>(_ column: Int, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        try base.withTextBytes(column, body)
    }
    public func readBlob(_ column: Int) throws -> [UInt8] { try base.readBlob(column) }
    public func readData(_ column: Int) throws -> Data { try base.readData(column) }
    public func readBool(_ column: Int) throws -> Bool { try base.readBool(column) }
    public func readDate(_ column: Int) throws -> Date { try base.readDate(column) }
    public func readUUID(_ column: Int) throws -> UUID { try base.readUUID(column) }
    public func relation<Related: CRUDModel>(_ index: Int) throws -> [Related]? { try base.relation(index) }
    public func decodingError(_ column: Int, _ problem: String) -> CRUDDecoderError { base.decodingError(column, problem) }
}
