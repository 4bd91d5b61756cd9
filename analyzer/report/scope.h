/* scope.h: the options every report shares (format, limit, sort, time window, by-rank) and the
 * temporary view `scope_event` that holds the events inside the chosen window. */
#ifndef TDB_SCOPE_H
#define TDB_SCOPE_H
#include "cli.h"
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
    int filtered;       /* set by scope_open: a window applies */
    int wide;           /* tables: nothing cut to fit the terminal */
    const char *hide;   /* tables: columns whose names hold one of these words (set by a report) */
    const char *columns; /* tables: exactly these columns */
};

/* The shared options, to splice into a command's table. */
#define SCOPE_OPTIONS(s)                                                                                     \
    {"format", 0, OPT_FORMAT, &(s).format, "table (default), csv or json"},                                  \
    {"limit", 'n', OPT_INT, &(s).limit, "show the first N rows"},                                            \
    {"sort", 's', OPT_STRING, &(s).sort, "sort key (an unknown one lists the valid keys)"},                \
    {"from", 0, OPT_STRING, &(s).from, "keep events starting this long after the trace start (ns, us, ms, s)"}, \
    {"to", 0, OPT_STRING, &(s).to, "... and before this (ns, us, ms, s)"},                                   \
    {"range", 0, OPT_STRING, &(s).range, "keep events starting inside range NAME (a glob: 'ProfilerStep#3')"}, \
    {"by-rank", 0, OPT_FLAG, &(s).by_rank, "one row per rank"},                                              \
    {"wide", 'w', OPT_FLAG, &(s).wide, "tables: every name whole, however wide the terminal"},             \
    {"columns", 0, OPT_STRING, &(s).columns, "tables: exactly these columns, as csv names them (a,b,c)"}

void scope_init(struct scope *s, const char *default_sort);

/* Opens the database read-only and creates temp view scope_event (every column of event, the events
 * in the window) and temp table scope_window. NULL on error (printed). */
sqlite3 *scope_open(const char *path, struct scope *s, struct cli *cli);

/* Parses "250", "250ns", "1.5us", "20ms", "2s" into ns. -1 when it is not a duration. */
int scope_parse_duration(const char *text, int64_t *ns);

/* Looks sort up in keys[] (NULL-terminated pairs: accepted name, column); the column or NULL
 * (with a message listing the keys). */
const char *scope_sort_column(const struct scope *s, const char *const *keys, struct cli *cli);

/* Binds :limit, :sort, :by_rank where the statement has them. */
void scope_bind(sqlite3_stmt *st, const struct scope *s, const char *sort_column);

/* Tables leave out the device columns of a trace with no GPU work, the memory columns of one with no
 * memory events (sets s->hide; scope_tables applies it). */
void scope_hide_absent(sqlite3 *db, struct scope *s);

/* Sets how a report's tables look (render_configure), with hint as the line shown when it has no rows. */
void scope_tables(const struct scope *s, const char *hint);

/* Renders: with --by-rank the first column (rank) is shown, else it is left out. */
int scope_render(sqlite3_stmt *st, const struct scope *s, struct cli *cli);

/* A named parameter a report binds besides the scope's: text when text != NULL, else the integer. */
struct scope_param {
    const char *name; /* ":kinds" */
    const char *text;
    int64_t value;
};

/* Prepares queries/NAME.sql, binds the scope and params (terminated by a NULL name), renders.
 * 0, or 1 on error (printed). */
int scope_run(sqlite3 *db, const char *query, const struct scope *s, const char *sort_column,
              const struct scope_param *params, struct cli *cli);

/* A report command whose only options are the shared ones: parse, open, run queries/QUERY.sql.
 * The whole body of such commands (api, memops, ranks). */
int scope_simple_report(int argc, char **argv, struct cli *cli, const char *usage, const char *default_sort,
                        const char *const *sort_keys, const char *query, const char *hint);

#endif
