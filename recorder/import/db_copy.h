/* db_copy.h: one tracedb database (attached as "src") copied into another (main), ids moved past those
 * present: what tracedb merge does with every input, and a shard directory's reduce database
 * (analyzer/report/shards.c) with the events a report reads. */
#ifndef TDB_DB_COPY_H
#define TDB_DB_COPY_H
#include <sqlite3.h>
#include <stdio.h>

enum tdb_copy_tables {
    TDB_COPY_EVENT_TABLES = 1, /* kernel_launch and memory_event rows of the events copied */
    TDB_COPY_SERIES = 2,       /* counters and flows */
};

struct tdb_copy {
    const char *events; /* which of src's event rows (alias e) come: an SQL condition, a constant of the
                         * caller's (never text a user typed); "1": all */
    int position;       /* the rank a trace naming none gets; -1: it stays NULL */
    unsigned tables;    /* enum tdb_copy_tables */
};

/* Copies traces, processes, threads, devices, the events c says, the side tables it says, event_stats and
 * device_stats; names and categories interned by value, custom kinds by name. 0, or -1 with
 * "prog: what: SQLite's reason" on err. */
int tdb_copy_attached(sqlite3 *db, const struct tdb_copy *c, const char *prog, const char *what, FILE *err);

#endif
