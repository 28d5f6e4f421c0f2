#ifndef MDOC_CSQLITE_SHIM_H
#define MDOC_CSQLITE_SHIM_H
/* SQLite's declarations only: libsqlite3 is not linked but loaded (dlopen) when a database is
   first opened (the SQLite target's SQLiteLibrary), so a process that opens none maps none of it,
   and `present` loads it as it starts. */
#include <sqlite3.h>
#include <stddef.h>
/* SQLITE_TRANSIENT is a cast macro Swift cannot import. */
static inline sqlite3_destructor_type mdoc_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* Every SQLite function the SQLite target calls. */
#define MDOC_SQLITE_FUNCTIONS(X) \
    X(sqlite3_open_v2) X(sqlite3_close_v2) X(sqlite3_extended_result_codes) X(sqlite3_busy_timeout) \
    X(sqlite3_exec) X(sqlite3_free) X(sqlite3_errmsg) X(sqlite3_errstr) X(sqlite3_last_insert_rowid) \
    X(sqlite3_changes64) X(sqlite3_get_autocommit) X(sqlite3_prepare_v3) X(sqlite3_finalize) \
    X(sqlite3_reset) X(sqlite3_clear_bindings) X(sqlite3_step) X(sqlite3_bind_parameter_count) \
    X(sqlite3_bind_parameter_index) X(sqlite3_bind_null) X(sqlite3_bind_int64) X(sqlite3_bind_double) \
    X(sqlite3_bind_text64) X(sqlite3_bind_blob64) X(sqlite3_bind_zeroblob) X(sqlite3_column_count) \
    X(sqlite3_column_name) X(sqlite3_column_type) X(sqlite3_column_int64) X(sqlite3_column_double) \
    X(sqlite3_column_text) X(sqlite3_column_blob) X(sqlite3_column_bytes)

/* The table: one field per function, named and typed as sqlite3.h declares it. */
#define MDOC_SQLITE_FIELD(name) __typeof__(name) *_Nonnull name;
struct mdoc_libsqlite {
    MDOC_SQLITE_FUNCTIONS(MDOC_SQLITE_FIELD)
};
#undef MDOC_SQLITE_FIELD

/* Fills `table` through `lookup(context, name)` (SharedLibrary's dlsym on the library's handle);
   NULL when every function was found, else the name of the first one missing (the table is then
   not to be read). */
static inline const char *_Nullable mdoc_libsqlite_resolve(
    struct mdoc_libsqlite *_Nonnull table,
    void *_Nullable (*_Nonnull lookup)(void *_Nullable, const char *_Nullable), void *_Nonnull context) {
#define MDOC_SQLITE_RESOLVE(name) \
    { \
        void *address = lookup(context, #name); \
        if (address == NULL) return #name; \
        table->name = (__typeof__(name) *)address; \
    }
    MDOC_SQLITE_FUNCTIONS(MDOC_SQLITE_RESOLVE)
#undef MDOC_SQLITE_RESOLVE
    return NULL;
}
#endif
