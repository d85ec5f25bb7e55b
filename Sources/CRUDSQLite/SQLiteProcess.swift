import CRUD
import CSQLite

/// SQLite's settings for the whole process: they hold for every SQLite database it opens, through
/// CRUD or any other library, and can be made only before SQLite's first use in it, so they are the
/// application's to choose, not a library's.
public enum SQLiteProcess {
    /// Has SQLite's mutexes spin briefly before they put a thread to sleep, in this whole process.
    ///
    /// Every read transaction takes and gives back a lock on its database's write-ahead-log index
    /// under one SQLite mutex for the file, which as SQLite ships sleeps at once when another thread
    /// holds it. From Swift's cooperative pool, which has a thread per core, a thread sleeping there
    /// leaves its core idle: 4 and 16 tasks' async lookups took 2.38× and 3.13× raw sqlite3 with a
    /// thread each, and 1.34× and 1.53× with spinning mutexes (Benchmarks/README.md). Recursive
    /// mutexes stay recursive. A database opened `exclusiveToProcess` takes no such lock.
    ///
    /// Call it at the start of the program, before anything opens a SQLite database, while no other
    /// thread can be using SQLite (SQLite's configuration is not safe against that). Calling it again
    /// is harmless.
    /// - Returns: whether SQLite's mutexes spin: `false` where pthread mutexes have no adaptive kind
    ///   (Apple's platforms), and SQLite keeps its own.
    /// - Throws: `CRUDSQLExeError` when SQLite was used in this process already; it then keeps its
    ///   own mutexes, and nothing changed.
    @discardableResult
    public static func useSpinningMutexes() throws -> Bool {
        try spinningMutexes.get()
    }

    /// What configuring SQLite's mutexes gave, the once it is done: SQLite takes a configuration only
    /// before its first use, after which the answer stays the same.
    private static let spinningMutexes: Result<Bool, CRUDSQLExeError> = {
        switch crud_sqlite3_use_adaptive_mutexes() {
        case SQLITE_OK: .success(true)
        case -1: .success(false)
        case let code:
            .failure(CRUDSQLExeError(
                "SQLite's mutexes can be replaced only before SQLite's first use in the process, and it was used already: "
                    + "call SQLiteProcess.useSpinningMutexes() at the start of the program, before any SQLite database opens",
                code: String(code)))
        }
    }()
}
