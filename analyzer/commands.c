/* commands.c: the alphabetical table of tracedb's subcommands (as git's commands[] and perf's
 * cmd_struct), shared by main.c's dispatcher and by `tracedb export csv --report NAME`. */
#include "cli.h"
#include <string.h>

static const struct cli_command commands[] = {
    {"api", cmd_api, 1, "runtime and driver API calls per name (nsys cuda_api_sum)"},
    {"device", cmd_device, 1, "per step and device: busy, run (compute), IO-wait and idle time"},
    {"diff", cmd_diff, 0, "compare two runs: operators, kernels, steps, device, memory; a CI gate"},
    {"export", cmd_export, 0, "export chrome (Perfetto) JSON or csv of any table, query or report"},
    {"finish", cmd_finish, 0, "complete a recording whose program was killed before it closed"},
    {"import", cmd_import, 0, "turn Chrome trace JSON files (.json, .json.gz, -) into a database"},
    {"kernels", cmd_kernels, 1, "GPU kernels (and memcpy/memset) per name (nsys cuda_gpu_kern_sum)"},
    {"latency", cmd_latency, 1, "step or range latency: count, min, mean, median, p90..p99.9, max"},
    {"memops", cmd_memops, 1, "memcpy and memset by operation: time, bytes, bandwidth"},
    {"memory", cmd_memory, 1, "memory high-water marks, leaks, per-operator bytes, timeline"},
    {"merge", cmd_merge, 0, "merge databases (one per rank) into one"},
    {"ops", cmd_ops, 1, "per-operator table with PyTorch key_averages() semantics"},
    {"ranks", cmd_ranks, 1, "per-rank step latency and the slowest rank of each step (stragglers)"},
    {"record", cmd_record, 0, "run a program, recording its NVTX ranges and (with a GPU) CUDA activity"},
    {"sql", cmd_sql, 0, "run ad-hoc SQL on a database (read-only unless --write)"},
    {"summary", cmd_summary, 1, "where the time and memory went, on one screen"},
    {NULL, NULL, 0, NULL},
};

const struct cli_command *cli_commands(void)
{
    return commands;
}

const struct cli_command *cli_command(const char *name)
{
    for (const struct cli_command *c = commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}
