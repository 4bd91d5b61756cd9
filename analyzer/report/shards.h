/* shards.h: a directory of shards (tracedb-mpi import: DIR/shards.json and a database per trace) read as
 * one database by the reports that need only each trace's sums: an in-memory database holding every
 * shard's per-name sums (event_stats), device sums (device_stats), traces, threads and ProfilerStep
 * ranges. The reduce of those sums is the report's own SQL (sums of integers: exact). */
#ifndef TDB_SHARDS_H
#define TDB_SHARDS_H
#include "report_io.h"
#include <sqlite3.h>

/* Whether path is a directory holding a shards.json. */
int shards_is_dir(const char *path);

/* The reduce database of the shards of dir listed in its shards.json (every one must have imported;
 * first..end-1 of them, stepping by step: a process's share; all: 0, -1, 1), with the report SQL
 * functions. NULL on error (said, naming the shard). */
sqlite3 *shards_open(const char *dir, long first, long end, long step, struct report_io *io);

/* Copies the sums of the database attached to reduce as "src" (a shard, or another reduce database)
 * into it, their ids moved past those present and their names interned. 0, or -1 (said, naming what). */
int shards_add(sqlite3 *reduce, const char *what, struct report_io *io);

/* The number of shards dir lists, or -1 (said). */
long shards_count(const char *dir, struct report_io *io);

/* Hands over a reduce database already made for dir (by tracedb-mpi's processes, each over its share):
 * the next shards_open(dir, 0, -1, 1, ...) returns it instead of reading the shards again. */
void shards_preload(const char *dir, sqlite3 *reduce);

#endif
