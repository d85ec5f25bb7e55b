import BenchCore
import CRUD
import CRUDSQLite
import Foundation

/// What a soak saw at one point of its run.
public struct SoakSample: Sendable {
    /// How far the run was, as a fraction of its time.
    public let progress: Double
    public let residentBytes: Int
    public let threads: Int
    public let lookups: Int
    public let inserts: Int
}

/// One pooled SQLite `Database` used as a service uses it, for `seconds`: 8 tasks look rows up by id
/// through the async API and 2 tasks insert rows one at a time, `lookups` and `inserts` per round,
/// rounds repeating until the time is up. `sample` is called at each quarter of the time. Every
/// lookup must find the row it asked for, and every insert must be stored: else it throws.
public func soak(path: String, rows: Int, lookups: Int, inserts: Int, seconds: Double,
                 sample: @escaping @Sendable (Double, Int, Int) -> Void) throws {
    CRUDLogging.queryLogDestinations = []
    let db = Database(configuration: try SQLiteDatabaseConfiguration(path))
    try db.create(BenchItem.self, policy: .dropTable)
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    try db.table(BenchItem.self).insert((0 ..< rows).map {
        BenchItem(id: Int64($0), name: "item \($0)", score: Double($0), flag: $0 % 2 == 0, createdAt: date, note: nil)
    })
    let progress = SoakProgress()
    let deadline = Date().addingTimeInterval(seconds)
    let start = Date()
    try waitFor {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for quarter in 1 ... 4 {
                    let due = start.addingTimeInterval(seconds * Double(quarter) / 4)
                    try await Task.sleep(for: .seconds(max(0, due.timeIntervalSinceNow)))
                    let (found, stored) = progress.counts
                    sample(Double(quarter) / 4, found, stored)
                }
            }
            var round = 0
            repeat {
                try await withThrowingTaskGroup(of: Void.self) { round in
                    for worker in 0 ..< 8 {
                        round.addTask {
                            var random = SplitMix(seed: UInt64(worker + 1))
                            for _ in 0 ..< lookups / 8 {
                                let id = Int64(random.next() % UInt64(rows))
                                guard let item = try await db.table(BenchItem.self).where(\BenchItem.id == id).first(), item.name == "item \(id)" else {
                                    throw SoakFailure("lookup of \(id) found no row or another one")
                                }
                                progress.found()
                            }
                        }
                    }
                    for writer in 0 ..< 2 {
                        let first = rows + progress.counts.stored + writer * inserts / 2
                        round.addTask {
                            for id in first ..< first + inserts / 2 {
                                try await db.table(BenchItem.self).insert(
                                    BenchItem(id: Int64(id), name: "new \(id)", score: 0, flag: false, createdAt: date, note: "soak"))
                                progress.stored()
                            }
                        }
                    }
                    try await round.waitForAll()
                }
                round += 1
            } while Date() < deadline
            try await group.waitForAll()
        }
    }
    let expected = rows + progress.counts.stored
    let count = try db.table(BenchItem.self).count()
    guard count == expected else { throw SoakFailure("\(count) rows stored, \(expected) expected") }
}

public struct SoakFailure: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Counts of the soak's work. `@unchecked Sendable`: guarded by `lock`.
private final class SoakProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var lookups = 0
    private var inserts = 0

    func found() { lock.withLock { lookups += 1 } }
    func stored() { lock.withLock { inserts += 1 } }
    var counts: (found: Int, stored: Int) { lock.withLock { (lookups, inserts) } }
}
