/// Prepared statements of one connection by SQL text, for drivers.
///
/// A statement is checked out while a query uses it; a second use of the same SQL meanwhile (a query
/// nested in its own iteration) gets a statement of its own that is not kept. When full, the least
/// recently prepared idle statement makes room.
@_spi(CRUDDriver) public struct CRUDStatementCache<Statement: AnyObject> {
    private var statements: [String: Statement] = [:]
    /// Checked-out cached statements, by identity: checking in needs no hashing of SQL text.
    private var inUse: Set<ObjectIdentifier> = []
    private var order: [String] = []
    /// Checked-out statements that `retireAll()` dropped: finalized when checked in.
    private var retired: Set<ObjectIdentifier> = []
    /// How many idle statements the cache keeps.
    public let capacity: Int

    /// An empty cache that keeps up to `capacity` statements.
    public init(capacity: Int) {
        self.capacity = capacity
    }

    /// The cached statement for `sql`, checked out, or `nil` when there is none or it is in use.
    public mutating func checkOut(_ sql: String) -> Statement? {
        guard let statement = statements[sql], inUse.insert(ObjectIdentifier(statement)).inserted else { return nil }
        return statement
    }

    /// Keeps a newly prepared statement, checked out, when `sql` has none yet.
    /// - Returns: whether it is kept, and a statement evicted to make room, for the driver to finalize.
    public mutating func add(_ statement: Statement, for sql: String) -> (kept: Bool, evicted: Statement?) {
        guard statements[sql] == nil else { return (false, nil) }
        var evicted: Statement?
        if statements.count >= capacity,
           let index = order.firstIndex(where: { statements[$0].map { !inUse.contains(ObjectIdentifier($0)) } ?? false }) {
            evicted = statements.removeValue(forKey: order.remove(at: index))
        }
        guard statements.count < capacity else { return (false, evicted) }
        statements[sql] = statement
        inUse.insert(ObjectIdentifier(statement))
        order.append(sql)
        return (true, evicted)
    }

    /// Checks a statement back in.
    /// - Returns: whether the cache keeps it; if not, the driver finalizes it.
    public mutating func checkIn(_ statement: Statement) -> Bool {
        guard inUse.remove(ObjectIdentifier(statement)) != nil else { return false }
        return retired.isEmpty || retired.remove(ObjectIdentifier(statement)) == nil
    }

    /// Drops every statement, so that the SQL is prepared anew (after a change to how the
    /// connection prepares): returns the idle ones for the driver to finalize; those in use are
    /// not kept when they are checked in.
    public mutating func retireAll() -> [Statement] {
        var idle: [Statement] = []
        for statement in statements.values {
            if inUse.contains(ObjectIdentifier(statement)) {
                retired.insert(ObjectIdentifier(statement))
            } else {
                idle.append(statement)
            }
        }
        statements.removeAll()
        order.removeAll()
        return idle
    }

    /// Empties the cache and returns what it held.
    public mutating func removeAll() -> [Statement] {
        defer {
            statements.removeAll()
            inUse.removeAll()
            order.removeAll()
        }
        return Array(statements.values)
    }
}
