/* report_options.h: the command-line side of a report: the options every report command shares (they
 * fill a struct scope, which report/ reads) and the whole body of a report that has no other options. */
#ifndef TDB_REPORT_OPTIONS_H
#define TDB_REPORT_OPTIONS_H
#include "cli.h"
#include "scope.h"

/* The shared options, to splice into a command's table. */
#define SCOPE_OPTIONS(s)                                                                                     \
    {"format", 0, OPT_FORMAT, &(s).format, "table (default), csv or json"},                                  \
    {"limit", 'n', OPT_INT, &(s).limit, "show the first N rows"},                                            \
    {"sort", 's', OPT_STRING, &(s).sort, "sort key (an unknown one lists the valid keys)"},                \
    {"from", 0, OPT_STRING, &(s).from, "keep events starting this long after the trace start (ns, us, ms, s)"}, \
    {"to", 0, OPT_STRING, &(s).to, "... and before this (ns, us, ms, s)"},                                   \
    {"range", 0, OPT_STRING, &(s).range, "keep events starting inside range NAME (a glob: 'ProfilerStep#3')"}, \
    {"by-rank", 0, OPT_FLAG, &(s).by_rank, "one row per rank"},                                              \
    {"drop-last-step", 0, OPT_FLAG, &(s).drop_last_step, "HTA's window: what starts before the last ProfilerStep (and its GPU work)"}, \
    {"wide", 'w', OPT_FLAG, &(s).wide, "tables: every name whole, however wide the terminal"},             \
    {"columns", 0, OPT_STRING, &(s).columns, "tables: exactly these columns, as csv names them (a,b,c)"}

/* --hta-rounding, for the reports of HTA's analyses (struct scope). */
#define HTA_ROUNDING_OPTION(s)                                                                               \
    {"hta-rounding", 0, OPT_FLAG, &(s).hta_rounding,                                                         \
     "HTA's rounding: times to whole us as its parser rounds ns-resolution traces (start up, end down), shares as its tables"}

/* The options' checks every report makes: --sort is one of sort_keys (NULL-terminated pairs, see
 * scope_sort_column), --by-step and --by-rank not both. The sort column, or NULL (said why). */
const char *cli_report_sort(const struct scope *sc, const char *const *sort_keys, struct cli *cli);

/* The end of a report command once its options are parsed: opens path in the scope, runs
 * queries/QUERY.sql with params (NULL-terminated, or NULL), closes. 0, or 1 (said why). */
int cli_run_report(const char *path, struct scope *sc, const char *sort, const char *query,
                   const struct scope_param *params, const char *hint, struct cli *cli);

/* A report command whose only options are the shared ones: parse, open, run queries/QUERY.sql.
 * The whole body of such commands (api, memops, ranks); shards_ok: its SQL reads only what a shard
 * directory's reduce database holds (struct scope). */
int cli_simple_report(int argc, char **argv, struct cli *cli, const char *usage, const char *default_sort,
                      const char *const *sort_keys, const char *query, const char *hint, int shards_ok);

/* The same with a C pass first: sweep(db, sc, io) fills what queries/QUERY.sql prints and returns 0,
 * or 1 on error (printed; a database tracedb did not write refused). */
int cli_swept_report(int argc, char **argv, struct cli *cli, const char *usage, const char *default_sort,
                     const char *const *sort_keys, const char *query,
                     int (*sweep)(sqlite3 *db, const struct scope *sc, struct report_io *io), const char *hint,
                     int shards_ok);

#endif
