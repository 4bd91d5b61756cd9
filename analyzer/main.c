/* main.c: the tracedb command: one alphabetical table of subcommands, dispatched by name (as perf and
 * git do). After a command returns, stdout is checked: a full disk or a closed pipe is an error. */
#include "cli.h"
#include "../recorder/version.h"
#include <errno.h>
#include <signal.h>
#include <string.h>

struct cmd {
    const char *name;
    int (*fn)(int argc, char **argv, struct cli *cli);
    const char *help;
};

static const struct cmd commands[] = {
    {"api", cmd_api, "runtime and driver API calls per name (nsys cuda_api_sum)"},
    {"device", cmd_device, "per step and device: busy, run (compute), IO-wait and idle time"},
    {"import", cmd_import, "turn Chrome trace JSON files (.json, .json.gz, -) into a database"},
    {"kernels", cmd_kernels, "GPU kernels (and memcpy/memset) per name (nsys cuda_gpu_kern_sum)"},
    {"latency", cmd_latency, "step or range latency: count, min, mean, median, p90..p99.9, max"},
    {"memops", cmd_memops, "memcpy and memset by operation: time, bytes, bandwidth"},
    {"memory", cmd_memory, "memory high-water marks, leaks, per-operator bytes, timeline"},
    {"ops", cmd_ops, "per-operator table with PyTorch key_averages() semantics"},
    {"sql", cmd_sql, "run ad-hoc SQL on a database (read-only unless --write)"},
    {"summary", cmd_summary, "where the time and memory went, on one screen"},
};

static void usage(FILE *to)
{
    fprintf(to, "usage: tracedb COMMAND [ARGS]   (tracedb COMMAND --help for its options)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(to, "    %-10s %s\n", commands[i].name, commands[i].help);
}

int main(int argc, char **argv)
{
    struct cli cli = {stdout, stderr, "tracedb"};
    char *help_args[] = {NULL, "--help", NULL};
    signal(SIGPIPE, SIG_IGN); /* a closed pipe shows up as a write error we report */
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
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[0], commands[i].name) != 0)
            continue;
        char prog[64];
        snprintf(prog, sizeof prog, "tracedb %s", commands[i].name);
        cli.prog = prog;
        int rc = commands[i].fn(argc, argv, &cli);
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
