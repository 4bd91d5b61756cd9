/* scope.h: the options every report shares (format, limit, sort, time window, by-rank) and the
 * temporary view `scope_event` that holds the events inside the chosen window. */
#ifndef TDB_SCOPE_H
#define TDB_SCOPE_H
#include "render.h"
#include "report_io.h"
#include "shards.h"
#include <sqlite3.h>

struct scope {
    enum render_format format;
    int64_t limit;      /* -1: all */
    const char *sort;   /* as given; each report whitelists */
    const char *from;   /* "10ms": from the trace's first event */
    const char *to;
    const char *range;  /* a range name or glob: keep events that start inside any instance */
    int by_rank;
    int by_step;        /* ops, kernels: one group of rows per ProfilerStep#N (in the rank column's place) */
    int drop_last_step; /* HTA's window: host events starting before the last ProfilerStep starts, and the GPU
                         * work they launched (traces with >= 2 ProfilerStep#N names; others whole) */
    int hta_rounding;   /* times as HTA's parser rounds an ns-resolution trace: each event's start up and end
                         * down to whole us (a launch's start too), shares as HTA's tables round them */
    int filtered;       /* set by scope_open: a window applies */
    int quiet;          /* scope_open does not repeat that the database is a recording not closed */
    int wide;           /* tables: nothing cut to fit the terminal */
    const char *hide;   /* tables: columns whose names hold one of these words (set by a report) */
    const char *columns; /* tables: exactly these columns */
    int wide_only;      /* tables: the command takes --wide but not --columns (summary) */
    int pytorch_bytes;  /* tables: bytes as PyTorch's tables print them (b, Kb, Mb, Gb of 1024: ops) */
    char hide_absent[32]; /* scope_hide_absent's words for hide */
    struct render_options table; /* how the report renders: set by scope_tables, its sort column by scope_bind */
    int shards_ok;      /* set by a report whose SQL reads only what a shard directory's reduce database holds
                         * (enum shards_level: 1 the sums, 2 and the GPU rows, ...): it runs over a directory */
    int shards_last_step; /* ... and with --drop-last-step too (it reads GPU work and launch calls only) */
    shards_each shards_each; /* ... and what it computes on each shard itself (ops_shard_pass), or NULL */
};

void scope_init(struct scope *s, const char *default_sort);

/* Opens the database read-only and creates temp view scope_event (every column of event, the events
 * in the window, with launch_ns also where the database was made before that column), scope_gpu (its
 * GPU work, with its launch's start, duration and name: launch_ns, launch_dur_ns, launch_name_id; the
 * launch joined once, and only when its duration or name is read) and
 * temp table scope_window. NULL on error (printed). */
sqlite3 *scope_open(const char *path, struct scope *s, struct report_io *io);

/* A second connection to db's file, read-only, with db's temp tables (their rows copied), indexes and
 * views (scope_event, scope_gpu, ...) and the SQL functions, for a pass that reads the events in two
 * halves at once. NULL when db has no file (a shard directory's reduce) or the copy fails: the pass
 * then reads in one. */
sqlite3 *scope_reopen(sqlite3 *db);

/* Parses "250", "250ns", "1.5us", "20ms", "2s" into ns. -1 when it is not a duration. */
int scope_parse_duration(const char *text, int64_t *ns);

/* Looks sort up in keys[] (NULL-terminated pairs: accepted name, column); the column or NULL
 * (with a message listing the keys). */
const char *scope_sort_column(const struct scope *s, const char *const *keys, struct report_io *io);

/* Binds :limit, :sort, :by_rank, :by_step, :hta_rounding where the statement has them. */
void scope_bind(sqlite3_stmt *st, struct scope *s, const char *sort_column);

/* Tables leave out the device columns of a trace with no GPU work, the memory columns of one with no
 * memory events (sets s->hide; scope_tables applies it). */
void scope_hide_absent(sqlite3 *db, struct scope *s);

/* Sets how a report's tables look (s->table), with hint as the line shown when it has no rows. */
void scope_tables(struct scope *s, const char *hint);

/* Renders: with --by-rank the first column (rank) is shown, else it is left out. */
int scope_render(sqlite3_stmt *st, const struct scope *s, struct report_io *io);

/* A named parameter a report binds besides the scope's: text when text != NULL, else the integer. */
struct scope_param {
    const char *name; /* ":kinds" */
    const char *text;
    int64_t value;
};

/* Prepares queries/NAME.sql, binds the scope and params (terminated by a NULL name), renders.
 * 0, or 1 on error (printed). */
int scope_run(sqlite3 *db, const char *query, struct scope *s, const char *sort_column,
              const struct scope_param *params, struct report_io *io);

#endif
