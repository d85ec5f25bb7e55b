#include <sqlite3.h>

/// Turns off SQLite's legacy reading of a double-quoted name that matches no column as a string
/// literal in queries, so that a misspelt column is an error rather than a silent constant.
/// sqlite3_db_config is variadic, which Swift cannot call.
static inline int crud_sqlite3_refuse_double_quoted_strings(sqlite3 *db) {
#ifdef SQLITE_DBCONFIG_DQS_DML
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
#else
    return SQLITE_OK;
#endif
}
