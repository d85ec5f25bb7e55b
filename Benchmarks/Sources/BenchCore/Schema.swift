import Foundation

/// The schema every implementation uses, created by the harness with the same SQL for all.
public enum Schema {
    public static let pragmas = [
        "PRAGMA journal_mode = WAL",
        "PRAGMA synchronous = NORMAL",
        "PRAGMA foreign_keys = ON",
    ]

    public static let tables = [
        """
        CREATE TABLE items ("id" INTEGER PRIMARY KEY NOT NULL, "name" TEXT NOT NULL, "score" REAL NOT NULL,
            "flag" INTEGER NOT NULL, "createdAt" REAL NOT NULL, "note" TEXT)
        """,
        #"CREATE TABLE parents ("id" INTEGER PRIMARY KEY NOT NULL, "name" TEXT NOT NULL)"#,
        #"CREATE TABLE children ("id" INTEGER PRIMARY KEY NOT NULL, "parentId" INTEGER NOT NULL, "name" TEXT NOT NULL, "value" REAL NOT NULL)"#,
        #"CREATE TABLE documents ("id" INTEGER PRIMARY KEY NOT NULL, "payload" TEXT NOT NULL)"#,
    ]

    /// Indexes of the read database: the filtered query reads through `score`'s, the join through
    /// `parentId`'s.
    public static let indexes = [
        #"CREATE INDEX items_score ON items ("score")"#,
        #"CREATE INDEX children_parent ON children ("parentId")"#,
    ]
}

/// The workloads every backend runs. An implementation is opened on a database (a file path, or a
/// connection URL) outside the timing, and returns a checksum of what it read.
public protocol BenchServerImplementation {
    /// Opens a connection to an existing database.
    init(path: String) throws
    /// Inserts the rows in one transaction.
    func insert(_ items: [ItemData]) throws
    /// Reads every item into structs.
    func fetchAll() throws -> Checksum
    /// Reads each item by primary key.
    func lookup(_ ids: [Int64]) throws -> Checksum
}

/// Every workload: the SQLite set.
public protocol BenchImplementation: BenchServerImplementation {
    /// Runs `WHERE score >= ? ORDER BY score LIMIT 100` for each threshold.
    func filtered(_ thresholds: [Double]) throws -> Checksum
    /// Reads every parent with its children.
    func parentsWithChildren() throws -> Checksum
    /// Reads each item by primary key, written as a one-off query.
    func chainLookup(_ ids: [Int64]) throws -> Checksum
    /// Reads every document, decoding its JSON payload.
    func documents() throws -> Checksum
    /// Reads each requested page of items with the total of its filter, both in one snapshot.
    func pages(_ requests: [PageRequest]) throws -> Checksum
}

extension BenchImplementation {
    /// Reads each item by primary key as the library's articles write a one-off lookup; for raw
    /// sqlite3 and GRDB that is their `lookup` (a prepared statement; `fetchOne(db, key:)`).
    public func chainLookup(_ ids: [Int64]) throws -> Checksum { try lookup(ids) }

    /// Measured for raw sqlite3 and CRUD only.
    public func documents() throws -> Checksum {
        throw BenchSkipped()
    }

    /// Measured for raw sqlite3 and CRUD only.
    public func pages(_ requests: [PageRequest]) throws -> Checksum {
        throw BenchSkipped()
    }
}

/// A workload an implementation does not run.
public struct BenchSkipped: Error {
    public init() {}
}

/// Workloads run by several workers at once on one database, each with a share of the work; the
/// implementation decides what a worker is (a thread with its own connection, or a task sharing a
/// pool), as its users would.
public protocol BenchConcurrentImplementation {
    init(path: String) throws
    /// Each worker looks up every id of its slice by primary key.
    func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum
    /// Each worker inserts its slice in transactions of `Dataset.transactionRows` rows.
    func concurrentInserts(_ slices: [[ItemData]]) throws
}

extension Dataset {
    /// Rows per transaction in the concurrent inserts.
    public static let transactionRows = 100
}

extension Checksum {
    /// Two workers' checksums as one: the same as if one worker had read both.
    public mutating func merge(_ other: Checksum) {
        self = Checksum(rows: rows + other.rows, value: value &+ other.value)
    }
}

/// Runs `work` for each worker on a thread of its own and returns the results in worker order.
public func onThreads<Value: Sendable>(_ workers: Int, _ work: @escaping @Sendable (Int) throws -> Value) throws -> [Value] {
    let results = WorkerResults<Value>(count: workers)
    let done = DispatchGroup()
    for worker in 0 ..< workers {
        done.enter()
        Thread {
            defer { done.leave() }
            results.set(worker, Swift.Result { try work(worker) })
        }.start()
    }
    done.wait()
    return try results.all()
}

/// The concurrent workloads as a task-based client runs them: a task per slice, all at once, on
/// `executor` when one is given (else Swift's cooperative pool).
public enum FromTasks {
    /// Each task looks up its slice with `lookup`; the checksums merged.
    public static func lookups(_ slices: [[Int64]], executor: (any TaskExecutor)? = nil,
                               _ lookup: @escaping @Sendable ([Int64]) async throws -> Checksum) throws -> Checksum {
        try waitFor {
            try await withThrowingTaskGroup(of: Checksum.self) { group in
                for slice in slices { group.addTask(preferring: executor) { try await lookup(slice) } }
                return try await group.reduce(into: Checksum()) { $0.merge($1) }
            }
        }
    }

    /// Each task inserts its slice in transactions of `Dataset.transactionRows` rows, one `transaction` call each.
    public static func inserts(_ slices: [[ItemData]], executor: (any TaskExecutor)? = nil,
                               _ transaction: @escaping @Sendable (ArraySlice<ItemData>) async throws -> Void) throws {
        try waitFor {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for slice in slices {
                    group.addTask(preferring: executor) {
                        for start in stride(from: 0, to: slice.count, by: Dataset.transactionRows) {
                            try await transaction(slice[start ..< min(start + Dataset.transactionRows, slice.count)])
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

extension ThrowingTaskGroup {
    /// A child task on `executor`, or a plain one as a client writes it: one added with a `nil`
    /// preference cost each async lookup about 300 instructions more (callgrind), in executor
    /// switches and task-local pushes that look for the preference under the task's status lock.
    mutating func addTask(preferring executor: (any TaskExecutor)?, _ operation: sending @escaping @isolated(any) () async throws -> ChildTaskResult) {
        if let executor {
            addTask(executorPreference: executor, operation: operation)
        } else {
            addTask(operation: operation)
        }
    }
}

/// Waits on this thread for async `work` to finish: the harness measures synchronously.
public func waitFor<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
    let results = WorkerResults<Value>(count: 1)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { results.set(0, .success(try await work())) } catch { results.set(0, .failure(error)) }
        done.signal()
    }
    done.wait()
    return try results.all()[0]
}

/// What workers report. `@unchecked Sendable`: `slots` is guarded by `lock`.
private final class WorkerResults<Value: Sendable>: @unchecked Sendable {
    private var slots: [Result<Value, any Error>?]
    private let lock = NSLock()

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    func set(_ worker: Int, _ result: Result<Value, any Error>) {
        lock.withLock { slots[worker] = result }
    }

    func all() throws -> [Value] {
        try lock.withLock { try slots.map { try $0!.get() } }
    }
}

/// The concurrent workloads as a C programmer writes them with threads: each worker opens a
/// connection of its own and runs the single-connection workload on its slice.
public protocol BenchConnectionPerThread: BenchServerImplementation, BenchConcurrentImplementation, SendableMetatype {
    /// What the implementation was opened on, to open the workers' connections.
    var path: String { get }
    /// Looks up every id, each lookup a read of its own (as each async call of a task is), where
    /// `lookup` may share one read transaction; by default `lookup` itself.
    func lookupEach(_ ids: [Int64]) throws -> Checksum
}

extension BenchConnectionPerThread {
    public func lookupEach(_ ids: [Int64]) throws -> Checksum {
        try lookup(ids)
    }

    public func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum {
        let path = self.path
        return try onThreads(slices.count) { worker in try Self(path: path).lookupEach(slices[worker]) }
            .reduce(into: Checksum()) { $0.merge($1) }
    }

    public func concurrentInserts(_ slices: [[ItemData]]) throws {
        let path = self.path
        _ = try onThreads(slices.count) { worker in
            let connection = try Self(path: path)
            let slice = slices[worker]
            for start in stride(from: 0, to: slice.count, by: Dataset.transactionRows) {
                try connection.insert(Array(slice[start ..< min(start + Dataset.transactionRows, slice.count)]))
            }
        }
    }
}
