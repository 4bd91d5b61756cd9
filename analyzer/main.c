/* main.c: the tracedb command: one alphabetical table of subcommands, dispatched by name (as perf and
 * git do). After a command returns, stdout is checked: a full disk or a closed pipe is an error. */
#include "cli.h"
#include "../recorder/output_claim.h"
#include "../recorder/version.h"
#include <errno.h>
#include <signal.h>
#include <string.h>

static void usage(FILE *to)
{
    fprintf(to, "usage: tracedb COMMAND [ARGS]   (tracedb COMMAND --help for its options)\n\ncommands:\n");
    for (const struct cli_command *c = cli_commands(); c->name; c++)
        fprintf(to, "    %-10s %s\n", c->name, c->help);
}

int main(int argc, char **argv)
{
    struct cli cli = {stdout, stderr, "tracedb"};
    char *help_args[] = {NULL, "--help", NULL};
    signal(SIGPIPE, SIG_IGN); /* a closed pipe shows up as a write error we report */
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
        cli.prog = prog;
        int rc = c->fn(argc, argv, &cli);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "tracedb: error writing output: %s\n", strerror(errno));
            return rc ? rc : 1;
        }
        return rc;
    }
    fprintf(stderr, "tracedb: '%s' is not a tracedb command\n", argv[0]);
    usage(stderr);
    return 2;
}
