/* shards.h: a directory of shards (tracedb-mpi import: DIR/shards.json and a database per trace) read as
 * one database by the reports that need only part of each trace: a temporary database holding every
 * shard's per-name sums (event_stats), device sums (device_stats), traces, threads and ranges (steps,
 * annotations), and for the reports over GPU work its kernel, memcpy and memset rows (gathered: the medians
 * stay exact), in the shards' order. The reduce is the report's own SQL (integer sums: exact). */
#ifndef TDB_SHARDS_H
#define TDB_SHARDS_H
#include "report_io.h"
#include <sqlite3.h>

/* What a report needs of each shard (struct scope's shards_ok). */
enum shards_level { SHARDS_NONE, SHARDS_SUMS, SHARDS_GPU, SHARDS_HOST, SHARDS_MEMORY };

/* Whether path is a directory holding a shards.json. */
int shards_is_dir(const char *path);

/* What a report computes on each shard itself, on the shard's own connection, into the reduce database's
 * tables named shard_* (ops_shard_pass: PyTorch's rules per operator need every event of a trace). 0, or
 * -1 (said, naming the shard). */
typedef int (*shards_each)(sqlite3 *reduce, const char *shard_path, struct report_io *io);

/* The reduce database of the shards of dir listed in its shards.json (every one must have imported;
 * first..end-1 of them: a process's share; all: 0, -1), holding what level says and what each (NULL:
 * nothing) makes of every shard, with the report SQL functions; or io's handover's, taken, when it suits
 * (struct shards_handover, below). NULL on error (said, naming the shard). */
sqlite3 *shards_open(const char *dir, long first, long end, enum shards_level level, shards_each each,
                     struct report_io *io);

/* Copies another reduce database attached to reduce as "src" into it: what level says, its ids moved
 * past those present and their names interned, and the rows its shards_each made (its shard_ops). 0, or
 * -1 (said, naming what). */
int shards_add(sqlite3 *reduce, const char *what, enum shards_level level, struct report_io *io);

/* The number of shards dir lists, or -1 (said). */
long shards_count(const char *dir, struct report_io *io);

/* A reduce database already made for dir at level with each (by tracedb-mpi's processes, each over its
 * share), handed to a command through its struct report_io: shards_open(dir, 0, -1, up to level, each or
 * NULL, io) takes it (reduce set to NULL) instead of reading the shards. Whoever made the handover closes
 * reduce when it is still there after the command (the command ended before it read the shards). */
struct shards_handover {
    const char *dir;
    sqlite3 *reduce;
    enum shards_level level;
    shards_each each;
};

#endif
