/* cmd_import.c: `tracedb import TRACE... -o run.db`: Chrome trace JSON files into one database; a
 * directory stands for the traces in it, and without -o the database goes beside the first
 * (recorder/import/trace_files.c has both rules). --cache: TRACE.tracedb, the database a report given
 * the trace reads (recorder/import/trace_cache.c). */
#include "cli.h"
#include "output_claim.h"
#include "trace_cache.h"
#include "trace_files.h"
#include "tracedb.h"
#include <string.h>

static const char import_usage[] =
    "tracedb import TRACE|DIR... [-o run.db] [--force | --append [--allow-duplicate]] [--rank N] [--strict] [--max-string SIZE] [--quiet]\n"
    "       tracedb import TRACE|DIR --cache [--force] [--quiet]";

/* --cache: the traces' database beside them (0 ready, 1 from a damaged trace, 3 none kept there). */
static int import_cache(char **argv, int n, int force, int quiet, int other_options, struct cli *cli)
{
    if (n != 1 || other_options) {
        fprintf(cli->io.err, "%s: --cache takes one trace or directory, and of the options only --force and --quiet\n",
                cli->io.prog);
        return 2;
    }
    char db[4200], why[4400];
    int rc = tdb_trace_cache(argv[0], force, !quiet, db, sizeof db, why, sizeof why, cli->io.err);
    if (rc == -2)
        fprintf(cli->io.err, "%s: %s: its database cannot be kept beside it (%s)\n", cli->io.prog, argv[0], why);
    else if (rc >= 0)
        fprintf(cli->io.out, "%s\n", db);
    return rc == -2 ? 3 : rc < 0 ? 1 : rc;
}

int cmd_import(int argc, char **argv, struct cli *cli)
{
    const char *out = NULL;
    int force = 0, append = 0, quiet = 0, strict = 0, duplicate = 0, cache = 0;
    int64_t rank = -1, max_string = 64 << 20;
    const struct opt opts[] = {
        {"output", 'o', OPT_STRING, &out,
         "the database to write (default: beside the first trace, named as it less .gz and .json, plus .db: "
         "run.json.gz -> run.db, DIR -> DIR.db)"},
        {"force", 'f', OPT_FLAG, &force, "replace the database if it exists"},
        {"append", 'a', OPT_FLAG, &append, "add the traces to an existing database"},
        {"allow-duplicate", 0, OPT_FLAG, &duplicate, "import a trace the database already holds (refused otherwise)"},
        {"quiet", 'q', OPT_FLAG, &quiet, "no progress, no closing line, no note of a directory's files that are no traces"},
        {"strict", 0, OPT_FLAG, &strict,
         "anomalies (negative dur, E without B, B never ended) are errors: the event is skipped, exit status 1"},
        {"rank", 'r', OPT_INT, &rank, "the rank of the (first) trace when it names none (the next ones get N+1, ...)"},
        {"max-string", 0, OPT_SIZE, &max_string, "the longest string kept (default 64M); an event with a longer one is skipped"},
        {"cache", 0, OPT_FLAG, &cache,
         "into TRACE.tracedb beside it, the database a report given the trace reads, unless that holds the traces "
         "as they are now (--force: imported again), and print its path; exit status 3 where it cannot be kept there"},
        OPT_END,
    };
    int n = cli_parse_options(argc, argv, opts, import_usage, cli);
    if (n < 0)
        return 2;
    if (n == 0) {
        fprintf(cli->io.err, "%s: no trace file given\n", cli->io.prog);
        cli_usage(opts, import_usage, cli->io.err);
        return 2;
    }
    if (cache)
        return import_cache(argv, n, force, quiet,
                            out || append || duplicate || strict || rank >= 0 || max_string != 64 << 20, cli);
    char named[4096];
    if (!out && !(out = tdb_trace_db_name(argv[0], named, sizeof named))) {
        fprintf(cli->io.err, "%s: no output database given, and %s has no name to take one from: -o run.db names it\n",
                cli->io.prog, strcmp(argv[0], "-") == 0 ? "standard input" : argv[0]);
        return 2;
    }
    if (!*out) {
        fprintf(cli->io.err, "%s: -o names no file (an empty name)\n", cli->io.prog);
        return 2;
    }
    /* --force replaces an output, never a trace being read: one named, or one in a directory named (the
     * list the import reads; where it cannot be made, the import fails before it writes, and says why) */
    char **files = NULL;
    int nfiles = tdb_trace_files((const char *const *)argv, n, &files, NULL, 0), reads = 0;
    for (int i = 0; i < nfiles && !reads; i++)
        reads = tdb_out_same_file(out, files[i]);
    if (nfiles > 0)
        tdb_trace_files_free(files, nfiles);
    if (reads) {
        fprintf(cli->io.err, "%s: %s is a trace this import reads; name another output\n", cli->io.prog, out);
        return 2;
    }
    if (force && append) {
        fprintf(cli->io.err, "%s: --force and --append do not go together\n", cli->io.prog);
        return 2;
    }
    unsigned flags = (force ? TDB_IMPORT_FORCE : 0u) | (append ? TDB_IMPORT_APPEND : 0u) |
                     (quiet ? 0u : TDB_IMPORT_PROGRESS) | (strict ? TDB_IMPORT_STRICT : 0u) |
                     (duplicate ? TDB_IMPORT_DUPLICATE : 0u);
    if (rank > 2147483647) { /* an MPI rank is an int: N + 1, N + 2 ... of the next traces stay far from 2^63 */
        fprintf(cli->io.err, "%s: --rank wants a rank from 0 to 2147483647, not %lld\n", cli->io.prog, (long long)rank);
        return 2;
    }
    if (max_string < 1 || max_string > (512 << 20)) {
        fprintf(cli->io.err, "%s: --max-string must be between 1 byte and 512M\n", cli->io.prog);
        return 2;
    }
    struct tdb_import_options opt = {flags, (long)rank, (size_t)max_string};
    int rc = tdb_import_with(out, (const char *const *)argv, n, &opt, cli->io.err);
    return rc < 0 ? 1 : rc;
}
