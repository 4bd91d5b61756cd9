/* cmd_merge.c: `tracedb merge rank0.db rank1.db ... -o job.db`: one database for a whole job. */
#include "cli.h"
#include "output_claim.h"
#include "tracedb.h"
#include <sys/stat.h>

static const char merge_usage[] = "tracedb merge IN.db... -o job.db [--force]";

int cmd_merge(int argc, char **argv, struct cli *cli)
{
    const char *out = NULL;
    int force = 0;
    const struct opt opts[] = {
        {"output", 'o', OPT_STRING, &out, "the merged database (required)"},
        {"force", 'f', OPT_FLAG, &force, "replace it if it exists"},
        OPT_END,
    };
    int n = cli_parse_options(argc, argv, opts, merge_usage, cli);
    if (n < 1 || !out) {
        if (n >= 0)
            cli_usage(opts, merge_usage, cli->io.err);
        return 2;
    }
    if (!*out) {
        fprintf(cli->io.err, "%s: -o names no file (an empty name)\n", cli->io.prog);
        return 2;
    }
    for (int i = 0; i < n; i++)
        if (tdb_out_same_file(out, argv[i])) {
            fprintf(cli->io.err, "%s: %s is an input of this merge; name another output\n", cli->io.prog, out);
            return 2;
        }
    struct stat sb;
    if (!force && stat(out, &sb) == 0 && !S_ISDIR(sb.st_mode)) { /* said here: the library's message offers --append, which merge lacks */
        fprintf(cli->io.err, "%s: %s already exists; use --force to replace it\n", cli->io.prog, out);
        return 1;
    }
    int rc = tdb_merge(out, (const char *const *)argv, n, force ? TDB_IMPORT_FORCE : 0u, cli->io.err);
    return rc < 0 ? 1 : rc;
}
