/* main.c: the tracedb command: one alphabetical table of subcommands, dispatched by name (as perf and
 * git do). After a command returns, stdout is checked: a full disk or a closed pipe is an error. */
#include "cli.h"
#include "output_claim.h"
#include "report.h"
#include "time_range.h"
#include "version.h"
#include <errno.h>
#include <sqlite3.h>
#include <signal.h>
#include <string.h>

static void usage(FILE *to)
{
    fprintf(to, "usage: tracedb COMMAND [ARGS]   (tracedb COMMAND --help for its options)\n\ncommands:\n");
    for (const struct cli_command *c = cli_commands(); c->name; c++)
        fprintf(to, "    %-10s %s\n", c->name, c->help);
}

/* After a report: says when the database it read held times no trace has (past 2^62 ns, 146 years,
 * either way, or a duration below 0: a damaged or edited database), which the report held to that range
 * (util/time_range.h) rather than compute with them; and how to find those events. */
static void warn_times_held(const char *prog)
{
    int64_t first;
    long n = tdb_times_held(&first);
    if (n == 0)
        return;
    const char *db = report_opened(); /* named when it is one, and quoting it is plain */
    if (!db || strpbrk(db, "'\n"))
        db = NULL;
    fprintf(stderr,
            "%s: warning: %ld time%s read from %s lay beyond 2^62 ns (146 years) or were durations below 0 (the "
            "first: %lld ns): no trace has such times (a damaged or edited database); each was held to that range, so "
            "the figures that use them are not real. To find them: tracedb sql %s%s%s \"SELECT id, start_ns, dur_ns, "
            "launch_ns FROM event WHERE start_ns NOT BETWEEN -%lld AND %lld OR dur_ns NOT BETWEEN 0 AND %lld OR "
            "launch_ns NOT BETWEEN -%lld AND %lld\"\n",
            prog, n, n == 1 ? "" : "s", db ? db : "the database", (long long)first, db ? "'" : "", db ? db : "DB",
            db ? "'" : "", (long long)TDB_TIME_MAX, (long long)TDB_TIME_MAX, (long long)TDB_TIME_MAX,
            (long long)TDB_TIME_MAX, (long long)TDB_TIME_MAX);
}

/* Edits (insert, delete, replace, swap two neighbours) from a to b, up to 3; 3 means "more". */
static int edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 32 || m > 32)
        return 3;
    int d[33][33];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m] < 3 ? d[n][m] : 3;
}

/* The command a mistyped name was most likely meant to be (two edits at most, as git suggests), or NULL. */
static const char *closest_command(const char *typed)
{
    const char *best = NULL;
    int best_d = 3;
    for (const struct cli_command *c = cli_commands(); c->name; c++) {
        int d = edit_distance(typed, c->name);
        if (d < best_d)
            best = c->name, best_d = d;
    }
    return best;
}

#ifndef TDB_MAIN
#define TDB_MAIN main /* tracedb-mpi builds this file with -DTDB_MAIN=tracedb_main (mpi_main.c) */
#endif
int TDB_MAIN(int argc, char **argv)
{
    struct cli cli = {{stdout, stderr, "tracedb", NULL}, NULL};
    char *help_args[] = {NULL, "--help", NULL};
    /* a closed pipe (tracedb ops run.db | head) ends tracedb quietly, as it ends git: SIGPIPE's default */
    signal(SIGPIPE, SIG_DFL);
    /* no allocation statistics (nothing reads them): each SQLite allocation took a global mutex for
     * them, 2% of the import's row writer. Before SQLite starts; later (tracedb-mpi's second call) a no-op. */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    tdb_out_cleanup_on_signals(); /* no temporary outlives a SIGTERM; ulimit -f is a reported error */
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        if (argc > 2) { /* tracedb help X == tracedb X --help */
            help_args[0] = argv[2];
            argv = help_args;
            argc = 2;
        } else {
            usage(stdout);
            return 0;
        }
    } else if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("tracedb %s (schema %d)\n", TDB_VERSION, TDB_SCHEMA_VERSION);
        return 0;
    } else {
        argv++, argc--;
    }
    const struct cli_command *c = cli_command(argv[0]);
    if (c) {
        char prog[64];
        snprintf(prog, sizeof prog, "tracedb %s", c->name);
        cli.io.prog = prog;
        cli.example = c->example;
        int rc = c->fn(argc, argv, &cli);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "tracedb: error writing output: %s\n", strerror(errno));
            return rc ? rc : 1;
        }
        warn_times_held(prog); /* below what the report printed */
        return rc;
    }
    const char *near = closest_command(argv[0]);
    if (near)
        fprintf(stderr, "tracedb: '%s' is not a tracedb command; did you mean '%s'?\n", argv[0], near);
    else {
        fprintf(stderr, "tracedb: '%s' is not a tracedb command\n", argv[0]);
        usage(stderr);
    }
    return 2;
}
