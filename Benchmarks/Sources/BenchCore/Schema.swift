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
}
