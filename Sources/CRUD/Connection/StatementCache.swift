/// Prepared statements of one connection by SQL text, for drivers.
///
/// A statement is checked out while a query uses it; a second use of the same SQL meanwhile (a query
/// nested in its own iteration) gets a statement of its own that is not kept. When full, the least
/// recently prepared idle statement makes room.
public struct CRUDStatementCache<Statement: AnyObject> {
    private var entries: [String: (statement: Statement, inUse: Bool)] = [:]
    private var order: [String] = []
    public let capacity: Int

    public init(capacity: Int) {
        self.capacity = capacity
    }

    /// The cached statement for `sql`, checked out, or `nil` when there is none or it is in use.
    public mutating func checkOut(_ sql: String) -> Statement? {
        guard let entry = entries[sql], !entry.inUse else { return nil }
        entries[sql]?.inUse = true
        return entry.statement
    }

    /// Keeps a newly prepared statement, checked out, when `sql` has none yet.
    /// - Returns: whether it is kept, and a statement evicted to make room, for the driver to finalize.
    public mutating func add(_ statement: Statement, for sql: String) -> (kept: Bool, evicted: Statement?) {
        guard entries[sql] == nil else { return (false, nil) }
        var evicted: Statement?
        if entries.count >= capacity, let index = order.firstIndex(where: { entries[$0]?.inUse == false }) {
            evicted = entries.removeValue(forKey: order.remove(at: index))?.statement
        }
        guard entries.count < capacity else { return (false, evicted) }
        entries[sql] = (statement, true)
        order.append(sql)
        return (true, evicted)
    }

    /// Checks a statement back in.
    /// - Returns: whether the cache keeps it; if not, the driver finalizes it.
    public mutating func checkIn(_ statement: Statement, for sql: String) -> Bool {
        guard let entry = entries[sql], entry.statement === statement else { return false }
        entries[sql]?.inUse = false
        return true
    }

    /// Empties the cache and returns what it held.
    public mutating func removeAll() -> [Statement] {
        defer {
            entries.removeAll()
            order.removeAll()
        }
        return entries.values.map(\.statement)
    }
}
