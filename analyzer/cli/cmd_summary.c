/* cmd_summary.c: `tracedb summary run.db`: one screen on where the time and memory went:
 * the trace, event kinds, devices, top operators by self time, top kernels, step latency, memory peak.
 * Each section is a query in queries/; empty sections are left out. */
#include "cli.h"
#include "idle_sweep.h"
#include "kinds.h"
#include "launch_sweep.h"
#include "memory_sweep.h"
#include "ops_sweep.h"
#include "render.h"
#include "report.h"
#include "scope.h"
#include "shards.h"
#include "type_sweep.h"
#include <stdlib.h>
#include <string.h>

static const char summary_usage[] = "tracedb summary run.db [--limit N] [--wide] [--format table|csv|json]";

static const struct {
    const char *query, *key, *title;
} summary_sections[] = {
    {"summary_trace", "trace", "Trace"},
    {"summary_kinds", "kinds", "Events by kind"},
    {"summary_devices", "devices", "Devices"},
    {"summary_ops", "ops", "Top operators by self CPU time (PyTorch key_averages semantics; all columns: tracedb ops)"},
    {"summary_kernels", "kernels", "Top kernels by total device time"},
    {"summary_latency", "latency", "Step and inference latency (Furiosa print_summary figures; all: tracedb latency)"},
    {"summary_device", "device", "Device time: busy = run (computation) + IO-wait (memory, communication)"},
    {"summary_memory", "memory", "Memory high-water marks (all of it: tracedb memory)"},
    {"summary_gpu_efficiency", "gpu_efficiency", "GPU efficiency, HTA's way (tracedb overlap, idle, launches; Idle summed over streams)"},
};

/* The GPU efficiency line (overlap's, idle's and launches' passes) reads every GPU row three times:
 * summary computes it up to this many (real traces: tens of thousands) and names the commands beyond. */
#define SUMMARY_HTA_ROWS 100000

/* The events of kinds a, b and c. */
static int64_t summary_calls(sqlite3 *db, int a, int b, int c)
{
    sqlite3_stmt *st;
    int64_t n = 0;
    if (sqlite3_prepare_v2(db, "SELECT coalesce(sum(calls), 0) FROM event_stats WHERE kind IN (?1, ?2, ?3)", -1, &st,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_int(st, 1, a);
        sqlite3_bind_int(st, 2, b);
        sqlite3_bind_int(st, 3, c);
        if (sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return n;
}

/* The GPU efficiency line's figures: the passes of tracedb overlap, idle and launches, with the options
 * each takes when given none (HTA's defaults: 30 us kernel wait; launches' 50 and 100 us cutoffs, which
 * the worst delay does not read), per rank and device as the commands give them; queries/
 * summary_gpu_efficiency.sql reads their tables. 0, or 1 (said; a database tracedb did not write refused). */
static int summary_gpu_passes(sqlite3 *db, struct report_io *io)
{
    if (type_sweep(db, 1, io) != 0 || idle_sweep(db, 30000, 0, io) != 0)
        return 1;
    return launch_sweep(db, 50000, 100000, 1, io);
}

int cmd_summary(int argc, char **argv, struct cli *cli)
{
    int64_t limit = 10;
    enum render_format fmt = FMT_TABLE;
    int wide = 0;
    const struct opt opts[] = {
        {"limit", 'n', OPT_INT, &limit, "rows in the top-N sections (default 10)"},
        {"wide", 'w', OPT_FLAG, &wide, "every column and every name whole, however wide the terminal"},
        {"format", 0, OPT_FORMAT, &fmt, "output format (default table)"},
        OPT_END,
    };
    int n = cli_parse_options(argc, argv, opts, summary_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, summary_usage, cli->io.err);
        return 2;
    }
    struct scope sc;
    scope_init(&sc, "");
    sc.shards_ok = 4; /* sums, steps, GPU rows, launch calls, [memory] events: a shard directory holds them */
    sc.shards_each = ops_shard_pass; /* and the top operators: each shard's own pass */
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io);
    if (!db)
        return 1;
    scope_hide_absent(db, &sc);
    sc.wide = wide, sc.wide_only = 1; /* --wide, but no --columns: they differ from section to section */
    scope_tables(&sc, NULL);
    size_t width = render_width(cli->io.out);
    sc.table.width = width; /* each section is rendered to memory first: fitted to where it goes */

    int rc = 0, printed = 0;
    /* top operators: `tracedb ops`'s pass (over a shard directory, each shard's, summed), its time columns */
    const struct ops_sweep_options so = {.sort = "self_cpu_ns", .from_shards = shards_is_dir(argv[0]), .no_memory = 1,
                                        .as_stored = !sc.filtered && !sc.hta_rounding};
    /* memory's high-water marks: `tracedb memory`'s own pass (queries/summary_memory.sql reads its table) */
    if (ops_sweep(db, &so, &cli->io) != 0 || memory_sweep(db, &cli->io) != 0) {
        sqlite3_close(db);
        return 1;
    }
    if (fmt == FMT_JSON)
        fputs("{", cli->io.out);
    for (size_t i = 0; i < sizeof summary_sections / sizeof summary_sections[0] && rc == 0; i++) {
        int64_t gpu_rows = 0;
        int hta = strcmp(summary_sections[i].query, "summary_gpu_efficiency") == 0;
        /* HTA's analyses are of GPUs that a host's runtime (CUDA, HIP) launches work on: not of Furiosa's
         * NPUs or RAF's streams, whose device work no runtime call launches */
        if (hta && summary_calls(db, TDB_KIND_RUNTIME, TDB_KIND_RUNTIME, TDB_KIND_RUNTIME) == 0)
            continue;
        if (hta && (gpu_rows = summary_calls(db, TDB_KIND_KERNEL, TDB_KIND_MEMCPY, TDB_KIND_MEMSET)) <= SUMMARY_HTA_ROWS &&
            summary_gpu_passes(db, &cli->io) != 0) {
            rc = 1;
            break;
        }
        if (hta && gpu_rows > SUMMARY_HTA_ROWS) {
            /* three sweeps over every GPU row: beyond this, a second or more; the commands say it */
            if (fmt == FMT_TABLE) {
                char line[200];
                snprintf(line, sizeof line, "GPU efficiency: %lld GPU events, more than summary sweeps; see tracedb "
                                            "overlap, idle, launches", (long long)gpu_rows);
                fputs(printed ? "\n" : "", cli->io.out);
                render_wrapped(cli->io.out, line, width, 2);
            }
            continue;
        }
        sqlite3_stmt *st = report_prepare(db, summary_sections[i].query, &cli->io);
        if (!st) {
            rc = 1;
            break;
        }
        report_bind_text(st, ":sort", "self_cpu_ns");
        report_bind_int(st, ":limit", (int64_t)limit);
        report_bind_int(st, ":by_rank", 0);
        /* rendered to memory first: a section with no rows is left out, and each query runs once */
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        int skip_rank = strcmp(sqlite3_column_name(st, 0), "rank") == 0;
        int64_t rows = mem ? render_query_from(st, fmt, skip_rank, &sc.table, mem, cli->io.err) : -1;
        if (mem)
            fclose(mem);
        sqlite3_finalize(st);
        if (rows < 0)
            rc = 1;
        if (rows > 0) {
            if (fmt == FMT_JSON)
                fprintf(cli->io.out, "%s\n\"%s\": ", printed ? "," : "", summary_sections[i].key);
            else if (fmt == FMT_CSV)
                fprintf(cli->io.out, "%s# %s\r\n", printed ? "\r\n" : "", summary_sections[i].key);
            else {
                fputs(printed ? "\n" : "", cli->io.out);
                render_wrapped(cli->io.out, summary_sections[i].title, width, 2);
            }
            fwrite(text, 1, len, cli->io.out);
            printed++;
        }
        free(text);
    }
    if (fmt == FMT_JSON)
        fputs("}\n", cli->io.out);
    sqlite3_close(db);
    return rc;
}
