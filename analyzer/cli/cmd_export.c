/* cmd_export.c: `tracedb export chrome|csv run.db ...`: leave tracedb for a viewer, a notebook or a
 * spreadsheet. chrome: Chrome trace JSON for Perfetto UI and chrome://tracing (chrome_export.c).
 * csv: any table or view, any read-only query, or any report, RFC 4180 via libcsv (render.c). */
#include "chrome_export.h"
#include "db_guard.h"
#include "output_claim.h"
#include <errno.h>
#include "cli.h"
#include "render.h"
#include "report.h"
#include "scope.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char export_usage[] =
    "tracedb export chrome run.db -o trace.json[.gz] [--kinds op,kernel,...] [--from T] [--to T] [--range NAME]\n"
    "       tracedb export csv run.db (--table NAME | --query SQL | --report NAME [-- REPORT-OPTIONS]) [-o out.csv]\n"
    "       (an existing output is replaced only with --force; the database read is never an output)";

/* path as one word of a shell command line that no command takes for an option: as given where every
 * byte is plain, else in single quotes (each ' written '\'' ); after ./ where it starts with '-'. */
static void put_shell_word(FILE *f, const char *path)
{
    if (*path == '-')
        fputs("./", f);
    if (*path && path[strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+,:=@%-")] == '\0') {
        fputs(path, f);
        return;
    }
    fputc('\'', f);
    for (const char *p = path; *p; p++)
        if (*p == '\'')
            fputs("'\\''", f);
        else
            fputc(*p, f);
    fputc('\'', f);
}

/* "(see: tracedb sql DB "QUERY")" and a newline: where the names a message wants are listed. */
static void put_see_sql(FILE *f, const char *db_path, const char *query)
{
    fputs(" (see: tracedb sql ", f);
    put_shell_word(f, db_path);
    fprintf(f, " \"%s\")\n", query);
}

/* Fills temp.export_kinds from "op,kernel" (names from the kind table), or every kind. */
static int export_kinds(sqlite3 *db, const char *db_path, const char *list, struct cli *cli)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_exec(db, "CREATE TEMP TABLE export_kinds (id INTEGER PRIMARY KEY)", NULL, NULL, NULL) != SQLITE_OK ||
        (!list && sqlite3_exec(db, "INSERT INTO export_kinds SELECT id FROM kind", NULL, NULL, NULL) != SQLITE_OK) ||
        (list && sqlite3_prepare_v2(db, "INSERT INTO export_kinds SELECT id FROM kind WHERE name = ?1", -1, &st, NULL) !=
                     SQLITE_OK)) { /* a damaged database, say */
        fprintf(cli->io.err, "%s: %s\n", cli->io.prog, sqlite3_errmsg(db));
        return -1;
    }
    if (!list)
        return 0;
    const char *p = list;
    int rc = 0;
    while (*p && rc == 0) {
        size_t n = strcspn(p, ",");
        sqlite3_bind_text(st, 1, p, (int)n, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step != SQLITE_DONE) {
            fprintf(cli->io.err, "%s: %s\n", cli->io.prog, sqlite3_errmsg(db));
            rc = -1;
        } else if (sqlite3_changes(db) != 1) {
            fprintf(cli->io.err, "%s: unknown kind '%.*s'", cli->io.prog, (int)n, p);
            put_see_sql(cli->io.err, db_path, "SELECT name FROM kind");
            rc = -1;
        }
        sqlite3_reset(st);
        p += n;
        if (*p == ',')
            p++;
    }
    sqlite3_finalize(st);
    return rc;
}

/* csv of a table or view named exactly as in the database (never SQL from the user's text). */
static int export_table(sqlite3 *db, const char *db_path, const char *name, FILE *out, struct cli *cli)
{
    sqlite3_stmt *st;
    const char *found = NULL;
    char *quoted = NULL;
    if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ?1", -1, &st,
                           NULL) != SQLITE_OK) {
        fprintf(cli->io.err, "%s: %s\n", cli->io.prog, sqlite3_errmsg(db));
        return 1;
    }
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        found = (const char *)sqlite3_column_text(st, 0);
    if (found)
        quoted = sqlite3_mprintf("SELECT * FROM \"%w\"", found); /* %w: an identifier, quotes doubled */
    sqlite3_finalize(st);
    if (!quoted) {
        fprintf(cli->io.err, "%s: no table or view named '%s'", cli->io.prog, name);
        put_see_sql(cli->io.err, db_path, "SELECT name FROM sqlite_schema");
        return 1;
    }
    int rc = 1;
    if (sqlite3_prepare_v2(db, quoted, -1, &st, NULL) == SQLITE_OK) {
        rc = render_query(st, FMT_CSV, NULL, out, cli->io.err) < 0;
        sqlite3_finalize(st);
    } else
        fprintf(cli->io.err, "%s: %s\n", cli->io.prog, sqlite3_errmsg(db));
    sqlite3_free(quoted);
    return rc;
}

/* csv of one query typed by the user: read-only, as `tracedb sql` without --write. */
static int export_query(sqlite3 *db, const char *sql, FILE *out, struct cli *cli)
{
    sqlite3_stmt *st;
    const char *tail;
    char why[160];
    tdb_db_guard_readonly(db);
    if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
        fprintf(cli->io.err, "%s: %s\n", cli->io.prog, sqlite3_errmsg(db));
        return 1;
    }
    if (st && tdb_db_check_readonly(st, why, sizeof why) != 0) {
        sqlite3_finalize(st);
        fprintf(cli->io.err, "%s: --query: %s\n", cli->io.prog, why);
        return 1;
    }
    sqlite3_stmt *more = NULL; /* what follows the statement: nothing, blanks or comments (prepared, never run) */
    int second = tail && *tail && (sqlite3_prepare_v2(db, tail, -1, &more, NULL) != SQLITE_OK || more);
    sqlite3_finalize(more);
    if (!st || sqlite3_column_count(st) == 0 || second) {
        sqlite3_finalize(st);
        fprintf(cli->io.err, "%s: --query must be one statement that returns rows%s\n", cli->io.prog,
                second ? " (another statement follows it)" : "");
        return 1;
    }
    int rc = render_query(st, FMT_CSV, NULL, out, cli->io.err) < 0;
    sqlite3_finalize(st);
    return rc;
}

/* csv of a report: the report's own command, with --format csv and its output sent to out. */
static int export_report(const char *name, const char *db, int nextra, char **extra, FILE *out, struct cli *cli)
{
    const struct cli_command *c = cli->commands;
    while (c && c->name && strcmp(c->name, name) != 0)
        c++;
    if (!c || !c->name || !c->is_report) {
        fprintf(cli->io.err, "%s: '%s' is not a report (one of:", cli->io.prog, name);
        for (c = cli->commands; c && c->name; c++)
            if (c->is_report)
                fprintf(cli->io.err, " %s", c->name);
        fprintf(cli->io.err, ")\n");
        return 1;
    }
    char **argv = calloc((size_t)nextra + 5, sizeof *argv);
    if (!argv)
        return 1;
    int argc = 0;
    argv[argc++] = (char *)name;
    argv[argc++] = (char *)db;
    for (int i = 0; i < nextra; i++)
        argv[argc++] = extra[i];
    argv[argc++] = "--format";
    argv[argc++] = "csv";
    struct cli sub = {{out, cli->io.err, cli->io.prog, NULL, cli->io.handover, cli->io.opened}, c->example, cli->in_process, c->name, NULL, cli->commands};
    int rc = c->fn(argc, argv, &sub);
    free(argv);
    return rc;
}

/* The export itself, into tmp (a file's temporary) or standard output. */
static int export_to(int argc, char **argv, int n, const char *output, const char *tmp, int chrome, const char *table,
                     const char *query, const char *report, const char *kinds, struct scope *sc, struct cli *cli)
{
    (void)argc;
    if (report) { /* the report opens the database itself */
        FILE *out = tmp ? tdb_out_fopen(tmp) : cli->io.out;
        if (!out) {
            fprintf(cli->io.err, "%s: cannot write %s: %s\n", cli->io.prog, output, tdb_out_reason(errno));
            return 1;
        }
        int rc = export_report(report, argv[1], n - 2, argv + 2, out, cli);
        if (tmp && fclose(out) != 0) {
            fprintf(cli->io.err, "%s: error writing %s: %s\n", cli->io.prog, output, tdb_out_reason(errno));
            rc = 1;
        }
        return rc;
    }
    sqlite3 *db = scope_open(argv[1], sc, &cli->io);
    if (!db)
        return 1;
    int rc;
    if (chrome) {
        rc = export_kinds(db, argv[1], kinds, cli) != 0 ? 1 : chrome_export(db, output, tmp ? tmp : output, &cli->io);
    } else {
        FILE *out = tmp ? tdb_out_fopen(tmp) : cli->io.out;
        if (!out) {
            fprintf(cli->io.err, "%s: cannot write %s: %s\n", cli->io.prog, output, tdb_out_reason(errno));
            sqlite3_close(db);
            return 1;
        }
        rc = table ? export_table(db, argv[1], table, out, cli) : export_query(db, query, out, cli);
        if (tmp && fclose(out) != 0) {
            fprintf(cli->io.err, "%s: error writing %s: %s\n", cli->io.prog, output, tdb_out_reason(errno));
            rc = 1;
        }
    }
    sqlite3_close(db);
    return rc;
}

int cmd_export(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "");
    const char *output = NULL, *kinds = NULL, *table = NULL, *query = NULL, *report = NULL;
    int force = 0;
    const struct opt opts[] = {
        {"output", 'o', OPT_STRING, &output, "where to write (chrome: required; .gz compresses; csv: stdout)"},
        {"kinds", 'k', OPT_STRING, &kinds, "chrome: only these kinds (op,range,runtime,kernel,memcpy,memset,...)"},
        {"from", 0, OPT_STRING, &sc.from, "chrome: events starting this long after the trace start"},
        {"to", 0, OPT_STRING, &sc.to, "chrome: ... and before this"},
        {"range", 0, OPT_STRING, &sc.range, "chrome: events starting inside range NAME"},
        {"table", 0, OPT_STRING, &table, "csv: a table or view (events, ops, kernels, ...)"},
        {"query", 0, OPT_STRING, &query, "csv: one read-only SQL query"},
        {"report", 0, OPT_STRING, &report, "csv: a report (ops, kernels, latency, ...); its options after --"},
        {"force", 'f', OPT_FLAG, &force, "replace the output if it exists"},
        OPT_END,
    };
    int n = cli_parse_options(argc, argv, opts, export_usage, cli);
    if (n >= 1 && strcmp(argv[0], "chrome") != 0 && strcmp(argv[0], "csv") != 0) {
        fprintf(cli->io.err, "%s: unknown export format '%s' (chrome or csv)\n", cli->io.prog, argv[0]);
        return 2;
    }
    if (n < 2) {
        if (n >= 0)
            cli_usage(opts, export_usage, cli->io.err);
        return 2;
    }
    int chrome = strcmp(argv[0], "chrome") == 0;
    if (chrome ? (!output || n != 2) : ((table != NULL) + (query != NULL) + (report != NULL) != 1 || (!report && n != 2))) {
        fprintf(cli->io.err, "%s: %s\n", cli->io.prog,
                chrome ? "export chrome needs run.db and -o FILE" : "export csv needs exactly one of --table, --query, --report");
        return 2;
    }
    /* a file is written beside its name and moved into place whole: never half an export */
    char tmp[4200];
    int to_file = output && strcmp(output, "-") != 0;
    const char *why = to_file ? tdb_out_unwritable(output, tmp, sizeof tmp) : NULL;
    if (why) { /* said before the database is read */
        fprintf(cli->io.err, "%s: cannot write %s: %s\n", cli->io.prog, output, why);
        return 1;
    }
    if (to_file && tdb_out_same_file(output, argv[1])) {
        fprintf(cli->io.err, "%s: %s is the database this export reads; name another output\n", cli->io.prog, output);
        return 2;
    }
    struct stat sb;
    if (to_file && !force && lstat(output, &sb) == 0) {
        fprintf(cli->io.err, "%s: %s already exists; use --force to replace it\n", cli->io.prog, output);
        return 2;
    }
    if (to_file && tdb_out_begin(output, tmp, sizeof tmp) != 0) {
        fprintf(cli->io.err, "%s: cannot name a temporary file beside %s\n", cli->io.prog, output);
        return 1;
    }
    int rc = export_to(argc, argv, n, output, to_file ? tmp : NULL, chrome, table, query, report, kinds, &sc, cli);
    if (to_file && rc == 0)
        rc = tdb_out_commit(tmp, output, force, cli->io.err) != 0;
    else if (to_file)
        tdb_out_discard(tmp);
    return rc;
}
