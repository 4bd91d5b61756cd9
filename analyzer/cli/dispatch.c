/* dispatch.c: running one tracedb command by name, for the tracedb program (main.c) and for programs
 * that load the library (tdb_run in tracedb.h: the Python package): `tracedb help X`, `--version`, the
 * command table's lookup with a suggestion for a mistyped name, and the checks after a command (its
 * output written whole; times the report had to hold). */
#include "cli.h"
#include "render.h"
#include "report.h"
#include "time_range.h"
#include "tracedb.h"
#include "version.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *to)
{
    static const char *const heading[CLI_GROUPS] = {
        [CLI_IMPORT] = "import and record",      [CLI_REPORT] = "reports (PyTorch, nsys, Furiosa)",
        [CLI_HTA] = "HTA's analyses",            [CLI_COMPARE] = "compare runs and ranks",
        [CLI_EXPORT] = "export and share",       [CLI_SQL] = "SQL",
    };
    int width = 0;
    for (const struct cli_command *c = cli_commands(); c->name; c++)
        if ((int)strlen(c->name) > width)
            width = (int)strlen(c->name);
    fprintf(to, "usage: tracedb COMMAND [ARGS]   (tracedb COMMAND --help for its options and examples)\n");
    for (int g = 0; g < CLI_GROUPS; g++) {
        fprintf(to, "\n%s:\n", heading[g]);
        for (const struct cli_command *c = cli_commands(); c->name; c++)
            if ((int)c->group == g)
                fprintf(to, "    %-*s  %s\n", width, c->name, c->help);
    }
}

/* After a report: says when the database it read held times (before: the count held before it) no trace has (past 2^62 ns, 146 years,
 * either way, or a duration below 0: a damaged or edited database), which the report held to that range
 * (util/time_range.h) rather than compute with them; and how to find those events. */
static void warn_times_held(const char *prog, FILE *err, long before, const struct opened_db *opened)
{
    int64_t first;
    long n = tdb_times_held(&first) - before;
    if (n <= 0)
        return;
    const char *db = report_opened(opened); /* named when it is one, and quoting it is plain */
    if (!db || strpbrk(db, "'\n"))
        db = NULL;
    fprintf(err,
            "%s: warning: %ld time%s read from %s lay beyond 2^62 ns (146 years) or were durations below 0 (the "
            "first: %lld ns): no trace has such times (a damaged or edited database); each was held to that range, so "
            "the figures that use them are not real. To find them: tracedb sql %s%s%s \"SELECT id, start_ns, dur_ns, "
            "launch_ns FROM event WHERE start_ns NOT BETWEEN -%lld AND %lld OR dur_ns NOT BETWEEN 0 AND %lld OR "
            "launch_ns NOT BETWEEN -%lld AND %lld\"\n",
            prog, n, n == 1 ? "" : "s", db ? db : "the database", (long long)first, db ? "'" : "", db ? db : "DB",
            db ? "'" : "", (long long)TDB_TIME_MAX, (long long)TDB_TIME_MAX, (long long)TDB_TIME_MAX,
            (long long)TDB_TIME_MAX, (long long)TDB_TIME_MAX);
}

/* The command a mistyped name was most likely meant to be (two edits at most, as git suggests), or NULL. */
static const char *closest_command(const char *typed)
{
    const char *best = NULL;
    int best_d = 3;
    for (const struct cli_command *c = cli_commands(); c->name; c++) {
        int d = cli_edit_distance(typed, c->name);
        if (d < best_d)
            best = c->name, best_d = d;
    }
    return best;
}

/* rc, or 1 where what was printed on out could not be written (said with the reason). */
static int written(FILE *out, FILE *err, int rc)
{
    if (fflush(out) == 0 && !ferror(out))
        return rc;
    fprintf(err, "tracedb: error writing output: %s\n", errno ? strerror(errno) : "an earlier write failed");
    return 1;
}

int cli_dispatch(int argc, char **argv, FILE *out, FILE *err, int in_process, struct shards_handover *handover)
{
    char *help_args[] = {NULL, "--help", NULL};
    if (argc < 1) {
        usage(err);
        return 2;
    }
    if (!in_process && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "help") == 0)) {
        if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) { /* (help --help) */
            usage(out);
            return written(out, err, 0);
        }
        help_args[0] = argv[1]; /* tracedb help X == tracedb X --help */
        argv = help_args;
        argc = 2;
    } else if (strcmp(argv[0], "--version") == 0 || strcmp(argv[0], "-V") == 0 || strcmp(argv[0], "version") == 0) {
        fprintf(out, "tracedb %s (schema %d)\n", TDB_VERSION, TDB_SCHEMA_VERSION);
        return written(out, err, 0);
    }
    const struct cli_command *c = cli_command(argv[0]);
    if (c) {
        char prog[64];
        snprintf(prog, sizeof prog, "tracedb %s", c->name);
        struct opened_db opened = {"", 0}; /* the database the command's reports open, for its warning */
        struct cli cli = {{out, err, prog, NULL, handover, &opened}, c->example, in_process, c->name, NULL, cli_commands()};
        int64_t first;
        long held = tdb_times_held(&first);
        int rc = c->fn(argc, argv, &cli);
        if (fflush(out) != 0 || ferror(out)) { /* errno: the failed write's, at the flush or before it; */
            if (errno || !rc) /* 0 where a command that failed, and said why, cleared it (export -o -) */
                fprintf(err, "tracedb: error writing output: %s\n", errno ? strerror(errno) : "an earlier write failed");
            return rc ? rc : 1;
        }
        warn_times_held(prog, err, held, &opened); /* below what the report printed */
        return rc;
    }
    const char *near = closest_command(argv[0]);
    if (near)
        fprintf(err, "tracedb: '%s' is not a tracedb command; did you mean '%s'?\n", argv[0], near);
    else {
        fprintf(err, "tracedb: '%s' is not a tracedb command\n", argv[0]);
        usage(err);
    }
    return 2;
}

int tdb_run(int argc, const char *const *argv, int out_fd, int err_fd)
{
    int o = dup(out_fd), e = dup(err_fd);
    FILE *out = o >= 0 ? fdopen(o, "w") : NULL, *err = e >= 0 ? fdopen(e, "w") : NULL;
    /* copies: the commands reorder their arguments (args) and may edit them; owned keeps what to free */
    size_t n = argc >= 0 && argv ? (size_t)argc + 1 : 1;
    char **owned = calloc(n, sizeof *owned), **args = calloc(n, sizeof *args);
    int rc = 1, whole = argc >= 0 && argv && owned && args;
    for (int i = 0; whole && i < argc; i++)
        whole = argv[i] && (args[i] = owned[i] = strdup(argv[i])) != NULL;
    if (!out || !err)
        rc = 1;
    else if (!whole)
        fprintf(err, "tracedb: %s\n", argc < 0 || !argv ? "no command given" : "out of memory");
    else if (argc >= 1 && strcmp(args[0], "record") == 0)
        fprintf(err, "tracedb: record runs a program: use the tracedb command (tdb_open records this process)\n"), rc = 2;
    else {
        report_exclusive_begin(); /* one command at a time (report.h) */
        rc = cli_dispatch(argc, args, out, err, 1, NULL); /* nothing handed over */
        report_exclusive_end();
    }
    for (size_t i = 0; owned && i < n; i++)
        free(owned[i]);
    free(owned);
    free(args);
    if (out && fclose(out) != 0 && rc == 0)
        rc = 1;
    else if (!out && o >= 0)
        close(o);
    if (err)
        fclose(err);
    else if (e >= 0)
        close(e);
    return rc;
}
