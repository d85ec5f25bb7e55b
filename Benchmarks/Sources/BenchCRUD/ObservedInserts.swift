import BenchCore
import CRUD
import CRUDPostgres
import CRUDSQLite
import Foundation

/// Inserts row by row, `Dataset.transactionRows` per transaction, optionally watched by an observer
/// that takes 0.1 ms per change (10 s for 100,000 changes, far slower than the writes): what
/// observation costs the writer.
public struct CRUDObservedInserts {
    private let insertRows: ([ItemData]) throws -> Void
    private let delivered: () -> Int

    /// CRUD on SQLite at `path` (`postgres: false`) or on the PostgreSQL URL `path`.
    public init(path: String, postgres: Bool, slowObserver: Bool) throws {
        if postgres {
            (insertRows, delivered) = Self.workload(Database(configuration: try PostgresDatabaseConfiguration(url: path)), slowObserver)
        } else {
            (insertRows, delivered) = Self.workload(Database(configuration: try SQLiteDatabaseConfiguration(path)), slowObserver)
        }
    }

    private static func workload<C>(_ db: Database<C>, _ slowObserver: Bool) -> (([ItemData]) throws -> Void, () -> Int) {
        CRUDLogging.queryLogDestinations = []
        let count = DeliveredCount()
        if slowObserver {
            db.observe(.insert, on: BenchItem.self) { _ in
                Thread.sleep(forTimeInterval: 0.000_1)
                count.increment()
            }
        }
        let insert = { (items: [ItemData]) in
            let table = db.table(BenchItem.self)
            for start in stride(from: 0, to: items.count, by: Dataset.transactionRows) {
                try db.transaction {
                    for data in items[start ..< min(start + Dataset.transactionRows, items.count)] {
                        try table.insert(BenchItem(id: data.id, name: data.name, score: data.score, flag: data.flag,
                                                   createdAt: data.createdAt, note: data.note))
                    }
                }
            }
        }
        return (insert, { count.value })
    }

    public func insert(_ items: [ItemData]) throws { try insertRows(items) }

    /// The changes the observer has had, once it has had `expected` (or two minutes have passed).
    public func delivered(waitingFor expected: Int) -> Int {
        let deadline = Date().addingTimeInterval(120)
        while delivered() < expected, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return delivered()
    }
}

/// `@unchecked Sendable`: `count` is guarded by `lock`.
private final class DeliveredCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
