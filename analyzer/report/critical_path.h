/* critical_path.h: `tracedb critical-path`'s pass: HTA's critical path of each trace (rank) in a
 * database, into the temp tables queries/critical_path.sql and critical_path_each.sql print. */
#ifndef TDB_CRITICAL_PATH_H
#define TDB_CRITICAL_PATH_H
#include "report_io.h"
#include <sqlite3.h>
#include <stdint.h>

/* The window, HTA's way: host events starting in [lo, hi] (both ends kept) and the GPU work they launched. */
struct cp_window {
    const char *range;    /* NAME: the window spans its instances (op, range or GPU range; a glob), or NULL;
                           * NAME#k or NAME#a-b picks instances when the whole text names nothing */
    int64_t first, last;  /* which instances, 0-based in time order; first < 0: all of them */
    int has_from, has_to; /* --from, --to: ns after the trace's start ([from, to)) */
    int64_t from, to;
    int drop_last_step;   /* end before the last ProfilerStep starts (traces with two ProfilerStep#N or more) */
    int each;             /* keep the path's edges (temp table critical_path_steps), not only its sums */
    int round_us;         /* times rounded to whole microseconds as HTA's parser does (start up, end down) */
    int hta_launch_edges; /* GPU work linked to its launch only where HTA's default does (cp_launch_edges) */
    int64_t each_limit;   /* with each: the first edges kept of each path (the output prints that many at most);
                           * -1: all */
};

/* Fills temp table critical_path_sums (one row per trace) and with w->each critical_path_steps (the paths'
 * edges).
 * path names the database in messages. 0, or 1 (the error printed). */
int critical_path(sqlite3 *db, const char *path, const struct cp_window *given, struct report_io *io);

#endif
