/* cmd_finish.c: `tracedb finish run.db`: complete a recording whose program was killed. */
#include "cli.h"
#include "tracedb.h"

static const char finish_usage[] = "tracedb finish run.db";

int cmd_finish(int argc, char **argv, struct cli *cli)
{
    const struct opt opts[] = {OPT_END};
    int n = cli_parse_options(argc, argv, opts, finish_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, finish_usage, cli->io.err);
        return 2;
    }
    return tdb_finish(argv[0], cli->io.err) == 0 ? 0 : 1;
}
