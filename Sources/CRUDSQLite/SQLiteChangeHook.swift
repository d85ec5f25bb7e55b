@_spi(CRUDDriver) import CRUD
import CSQLite
import Foundation

// How an SQLite connection tells the executor of every row it changes: SQLite's update hook sees
// each insert, update and delete, from the chain and from raw SQL alike, including rows a foreign
// key's cascade changes. The hook is installed only while someone observes, so unobserved writes
// pay nothing per row.
extension SQLiteConnection {
    @_spi(CRUDDriver) public func recordChanges(into recorder: CRUDChangeRecorder) -> Bool {
        changeRecorder = recorder
        // Unowned, not weak: a weak reference would move every retain of the connection to the slow
        // path. The recorder calls it only while its session, which holds the connection, runs.
        recorder.recordingChanged = { [unowned self] recording in
            reportChanges(recording)
        }
        return true
    }

    private func reportChanges(_ on: Bool) {
        guard on else {
            sqlite3_update_hook(handle, nil, nil)
            sqlite3_set_authorizer(handle, nil, nil)
            return
        }
        sqlite3_update_hook(handle, { context, operation, database, table, rowID in
            guard let context, let recorder = Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue().changeRecorder,
                  let database, let table, strcmp(database, "main") == 0 else { return }
            let kind: CRUDChangeKind
            switch operation {
            case SQLITE_INSERT: kind = .insert
            case SQLITE_UPDATE: kind = .update
            case SQLITE_DELETE: kind = .delete
            default: return
            }
            recorder.record(kind, table: table, id: rowID)
        }, Unmanaged.passUnretained(self).toOpaque())
        // A DELETE without WHERE empties the table in one go (the truncate optimization), which the
        // update hook does not see; answering SQLITE_IGNORE for the delete makes SQLite delete row by
        // row instead, as it documents. The schema's own tables are left alone, and so is a DROP
        // TABLE's own DELETE of its table, which SQLite asks about right after the drop itself: the
        // same answer there makes SQLite skip the DROP, silently. The authorizer runs when a
        // statement is prepared, so statements prepared before are prepared again.
        sqlite3_set_authorizer(handle, { context, action, table, _, _, _ in
            guard let context, let table else { return SQLITE_OK }
            let connection = Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue()
            switch action {
            case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE:
                connection.droppingTable = String(cString: table)
                return SQLITE_OK
            case SQLITE_DELETE:
                if let dropping = connection.droppingTable {
                    connection.droppingTable = nil
                    if dropping == String(cString: table) { return SQLITE_OK }
                }
                return sqlite3_strnicmp(table, "sqlite_", 7) == 0 ? SQLITE_OK : SQLITE_IGNORE
            default:
                return SQLITE_OK
            }
        }, Unmanaged.passUnretained(self).toOpaque())
        for statement in cache.retireAll() { statement.finalize() }
    }
}
