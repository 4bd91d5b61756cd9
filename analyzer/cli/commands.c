/* commands.c: the alphabetical table of tracedb's subcommands (as git's commands[] and perf's
 * cmd_struct), shared by main.c's dispatcher and by `tracedb export csv --report NAME`. */
#include "cli.h"
#include <string.h>

static const struct cli_command commands[] = {
    {"api", cmd_api, 1, "runtime and driver API calls per name (nsys cuda_api_sum)", "tracedb api run.db --limit 10\ntracedb api run.db --format csv > api.csv", CLI_REPORT},
    {"critical-path", cmd_critical_path, 1, "per rank: the critical path through operators, launches, kernels and syncs (HTA)", "tracedb critical-path run.db --range 'ProfilerStep#1'\ntracedb critical-path run.db --range '*forward*#1' --each --limit 20", CLI_HTA},
    {"device", cmd_device, 1, "per step and device: busy, run (compute), IO-wait and idle time; --executions: each NPU execution", "tracedb device run.db\ntracedb device run.db --range 'ProfilerStep#3'", CLI_REPORT},
    {"diff", cmd_diff, 0, "compare two runs: operators, kernels, steps, device, memory; a CI gate", "tracedb diff base.db new.db --limit 10\ntracedb diff base.db new.db --fail-above 5   # CI gate: exit 3 on a real regression", CLI_COMPARE},
    {"export", cmd_export, 0, "export chrome (Perfetto) JSON or csv of any table, query or report", "tracedb export chrome run.db -o trace.json.gz\ntracedb export csv run.db --report ops -o ops.csv", CLI_EXPORT},
    {"finish", cmd_finish, 0, "complete a recording whose program was killed before it closed", "tracedb finish run.db   # after the recorded program was killed", CLI_IMPORT},
    {"idle", cmd_idle, 1, "per rank, device and stream: GPU idle time by cause (HTA get_idle_time_breakdown)", "tracedb idle run.db --drop-last-step", CLI_HTA},
    {"import", cmd_import, 0, "turn traces (Chrome JSON .json, .json.gz, -; Furiosa's records .csv, .csv.gz; or a directory of them) into a database", "tracedb import trace.json.gz -o run.db\ntracedb import trace.json.gz\ntracedb import rank0.json.gz rank1.json.gz -o job.db\ntracedb import log/resnet18 -o job.db\ntracedb import more.json -o run.db --append", CLI_IMPORT},
    {"kernels", cmd_kernels, 1, "GPU kernels (and memcpy/memset) per name (nsys cuda_gpu_kern_sum)", "tracedb kernels run.db --limit 10\ntracedb kernels run.db --group-by launch --kinds kernel", CLI_REPORT},
    {"launches", cmd_launches, 1, "per kernel: launch call, GPU time and launch delay, HTA's outliers", "tracedb launches run.db --drop-last-step\ntracedb launches run.db --each --format csv > launches.csv", CLI_HTA},
    {"latency", cmd_latency, 1, "step, range or inference latency: count, min, max, mean, median, p90..p99.9 (Furiosa print_summary)", "tracedb latency run.db\ntracedb latency run.db --name 'aten::mm'", CLI_REPORT},
    {"memops", cmd_memops, 1, "memcpy and memset by operation: time, bytes, bandwidth", "tracedb memops run.db", CLI_REPORT},
    {"memory", cmd_memory, 1, "memory high-water marks, leaks, per-operator bytes, timeline", "tracedb memory run.db\ntracedb memory run.db --by-op --limit 10", CLI_REPORT},
    {"merge", cmd_merge, 0, "merge databases (one per rank) into one", "tracedb merge r0.db r1.db -o job.db", CLI_IMPORT},
    {"ops", cmd_ops, 1, "per-operator table with PyTorch key_averages() semantics", "tracedb ops run.db --limit 20\ntracedb ops run.db --group-by shape --with-flops\ntracedb ops run.db --range 'ProfilerStep#3' --columns name,calls,self_cpu_ns", CLI_REPORT},
    {"overlap", cmd_overlap, 1, "per rank: communication, computation and their overlap (HTA get_comm_comp_overlap)", "tracedb overlap run.db --drop-last-step", CLI_HTA},
    {"queue", cmd_queue, 1, "per rank, device and stream: the launch queue's length, HTA's way, time-weighted too", "tracedb queue run.db --drop-last-step\ntracedb queue run.db --timeline --format csv > queue.csv", CLI_HTA},
    {"ranks", cmd_ranks, 1, "per-rank step latency and the slowest rank of each step (stragglers)", "tracedb ranks job.db --limit 10", CLI_COMPARE},
    {"record", cmd_record, 0, "run a program, recording its NVTX ranges and (with a GPU) CUDA activity", "tracedb record -o run.db -- python train.py --epochs 1\nmake build/nvtx_sample && tracedb record -o nvtx.db -- build/nvtx_sample   # the bundled NVTX sample\n"
               "tracedb record -o run.db --schedule 1,1,1,3,1 --step 'train_step*' -- ./trainer   # steps 4-6, steps being NVTX ranges", CLI_IMPORT},
    {"report", cmd_report, 0, "one self-contained HTML page: timeline, top operators and kernels, steps, device, memory", "tracedb report run.db -o report.html\ntracedb report new.db --baseline base.db -o diff.html", CLI_EXPORT},
    {"sql", cmd_sql, 0, "run ad-hoc SQL on a database (read-only unless --write)", "tracedb sql run.db \"SELECT name, count(*), median(dur_ns) FROM kernels GROUP BY name ORDER BY 3 DESC LIMIT 5\"", CLI_SQL},
    {"summary", cmd_summary, 1, "where the time and memory went, on one screen", "tracedb summary run.db\ntracedb summary run.db --format json", CLI_REPORT},
    {NULL, NULL, 0, NULL, NULL, CLI_GROUPS},
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
