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

#include <pthread.h>
#include <stdlib.h>

/* SQLite's mutexes as adaptive pthread mutexes, which spin briefly before they sleep where SQLite's
   own sleep at once (its recursive ones stay recursive). For crud_sqlite3_use_adaptive_mutexes. */
#if defined(__GLIBC__)
/* glibc's PTHREAD_MUTEX_ADAPTIVE_NP, part of its ABI, declared only under _GNU_SOURCE, which the
   C modules Swift imports are not compiled with. */
#define CRUD_SQLITE3_ADAPTIVE_MUTEX 3
#define CRUD_SQLITE3_STATIC_MUTEXES (SQLITE_MUTEX_STATIC_VFS3 - SQLITE_MUTEX_STATIC_MAIN + 1)

/* The static mutexes, by id from SQLITE_MUTEX_STATIC_MAIN; one table, as only CRUDSQLite calls this. */
static inline pthread_mutex_t *crud_sqlite3_static_mutexes(void) {
    static pthread_mutex_t table[CRUD_SQLITE3_STATIC_MUTEXES];
    return table;
}

/* Makes `mutex` of pthread's `type`: whether it could. */
static inline int crud_sqlite3_make_mutex(pthread_mutex_t *mutex, int type) {
    pthread_mutexattr_t attributes;
    if (pthread_mutexattr_init(&attributes)) return 0;
    int made = pthread_mutexattr_settype(&attributes, type) == 0 && pthread_mutex_init(mutex, &attributes) == 0;
    pthread_mutexattr_destroy(&attributes);
    return made;
}

/* Whether every static mutex was made, by crud_sqlite3_make_static_mutexes, once. */
static inline int *crud_sqlite3_static_mutexes_made(void) {
    static int made;
    return &made;
}

static inline void crud_sqlite3_make_static_mutexes(void) {
    int made = 1;
    for (int index = 0; index < CRUD_SQLITE3_STATIC_MUTEXES; index++) {
        made = crud_sqlite3_make_mutex(&crud_sqlite3_static_mutexes()[index], CRUD_SQLITE3_ADAPTIVE_MUTEX) && made;
    }
    *crud_sqlite3_static_mutexes_made() = made;
}

/* SQLite may call it more than once, from any thread: the static mutexes are made the first time. */
static inline int crud_sqlite3_mutex_init(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, crud_sqlite3_make_static_mutexes);
    return *crud_sqlite3_static_mutexes_made() ? SQLITE_OK : SQLITE_NOMEM;
}

static inline int crud_sqlite3_mutex_end(void) { return SQLITE_OK; }

/* A fast mutex adaptive, a recursive one recursive, a static one from the table; NULL (SQLite's
   out-of-memory) for an id this header does not know. */
static inline sqlite3_mutex *crud_sqlite3_mutex_alloc(int id) {
    if (id >= SQLITE_MUTEX_STATIC_MAIN) {
        if (id > SQLITE_MUTEX_STATIC_VFS3) return 0;
        return (sqlite3_mutex *)&crud_sqlite3_static_mutexes()[id - SQLITE_MUTEX_STATIC_MAIN];
    }
    pthread_mutex_t *mutex = (pthread_mutex_t *)malloc(sizeof(pthread_mutex_t));
    if (mutex && !crud_sqlite3_make_mutex(mutex, id == SQLITE_MUTEX_RECURSIVE ? PTHREAD_MUTEX_RECURSIVE : CRUD_SQLITE3_ADAPTIVE_MUTEX)) {
        free(mutex);
        return 0;
    }
    return (sqlite3_mutex *)mutex;
}

/* Called by SQLite for fast and recursive mutexes only, never for static ones. */
static inline void crud_sqlite3_mutex_free(sqlite3_mutex *mutex) {
    pthread_mutex_destroy((pthread_mutex_t *)mutex);
    free(mutex);
}

static inline void crud_sqlite3_mutex_enter(sqlite3_mutex *mutex) { pthread_mutex_lock((pthread_mutex_t *)mutex); }
static inline int crud_sqlite3_mutex_try(sqlite3_mutex *mutex) {
    return pthread_mutex_trylock((pthread_mutex_t *)mutex) == 0 ? SQLITE_OK : SQLITE_BUSY;
}
static inline void crud_sqlite3_mutex_leave(sqlite3_mutex *mutex) { pthread_mutex_unlock((pthread_mutex_t *)mutex); }
/* Asked only by the assertions of SQLite's debug builds: true, as SQLite asks of a mutex that
   cannot tell, so that they hold. */
static inline int crud_sqlite3_mutex_cannot_tell(sqlite3_mutex *mutex) {
    (void)mutex;
    return 1;
}
#endif

/// Has SQLite use adaptive mutexes in this whole process: SQLITE_OK; SQLITE_MISUSE once SQLite has
/// initialized (it then keeps its own); -1 where pthreads have no adaptive mutex (Apple's platforms,
/// any but glibc's).
/// sqlite3_config is variadic, which Swift cannot call.
static inline int crud_sqlite3_use_adaptive_mutexes(void) {
#if defined(__GLIBC__)
    static const sqlite3_mutex_methods methods = {
        crud_sqlite3_mutex_init, crud_sqlite3_mutex_end, crud_sqlite3_mutex_alloc, crud_sqlite3_mutex_free,
        crud_sqlite3_mutex_enter, crud_sqlite3_mutex_try, crud_sqlite3_mutex_leave,
        crud_sqlite3_mutex_cannot_tell, crud_sqlite3_mutex_cannot_tell,
    };
    return sqlite3_config(SQLITE_CONFIG_MUTEX, &methods);
#else
    return -1;
#endif
}
