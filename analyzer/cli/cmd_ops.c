/* cmd_ops.c: `tracedb ops run.db`: the per-operator table with PyTorch key_averages() semantics, from
 * the C pass of analyzer/report/ops_sweep.c (whole trace, a window, shapes, stacks, steps, ranks, FLOPs;
 * over a shard directory each shard's own pass, summed) rendered by queries/ops_agg.sql, the GPU work's own
 * rows too as PyTorch lists its device events (--no-device-rows: the CPU-side rows alone), with PyTorch's
 * footer totals in table form. */
#include "cli.h"
#include "ops_sweep.h"
#include "render.h"
#include "report.h"
#include "report_options.h"
#include "shards.h"
#include <string.h>

static const char ops_usage[] =
    "tracedb ops run.db [--group-by name|shape|stack] [--stack-depth N] [--with-flops] [--sort KEY]\n"
    "                   [--limit N] [--from T] [--to T] [--range NAME] [--by-rank | --by-step]\n"
    "                   [--no-device-rows] [--format table|csv|json]";

/* Accepted sort keys (ours, then PyTorch's names) and the column each sorts by. */
static const char *const ops_sort_keys[] = {
    "self_cpu_ns", "self_cpu_ns", "self_cpu_time_total", "self_cpu_ns",
    "cpu_total_ns", "cpu_total_ns", "cpu_time_total", "cpu_total_ns",
    "self_device_ns", "self_device_ns", "self_cuda_time_total", "self_device_ns",
    "device_total_ns", "device_total_ns", "cuda_time_total", "device_total_ns",
    "cpu_mem_bytes", "cpu_mem_bytes", "cpu_memory_usage", "cpu_mem_bytes",
    "self_cpu_mem_bytes", "self_cpu_mem_bytes", "self_cpu_memory_usage", "self_cpu_mem_bytes",
    "device_mem_bytes", "device_mem_bytes", "cuda_memory_usage", "device_mem_bytes",
    "self_device_mem_bytes", "self_device_mem_bytes", "self_cuda_memory_usage", "self_device_mem_bytes",
    "calls", "calls", "count", "calls",
    "flops", "flops", "name", "name",
    NULL,
};

/* PyTorch's footer: "Self CPU time total" (the CPU-side rows') and "Self CUDA time total" (the device
 * rows', listed or not): the pass's own (analyzer/report/ops_sweep.c). */
static void ops_footer(sqlite3 *db, struct cli *cli)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT self_cpu_ns, device_ns FROM temp.ops_totals", -1, &st, NULL) != SQLITE_OK)
        return;
    if (sqlite3_step(st) == SQLITE_ROW) {
        char cpu[32], dev[32];
        render_time(cpu, sizeof cpu, sqlite3_column_int64(st, 0));
        render_time(dev, sizeof dev, sqlite3_column_int64(st, 1));
        fprintf(cli->io.out, "Self CPU time total: %s\n", cpu);
        if (sqlite3_column_int64(st, 1))
            fprintf(cli->io.out, "Self device time total: %s\n", dev);
    }
    sqlite3_finalize(st);
}

int cmd_ops(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "self_cpu_ns");
    const char *group_by = "name";
    int64_t stack_depth = 5;
    int with_flops = 0, no_device_rows = 0;
    const struct opt opts[] = {
        SCOPE_OPTIONS(sc),
        {"group-by", 'g', OPT_STRING, &group_by, "name (default), shape (Input Dims) or stack (Python frames)"},
        {"stack-depth", 0, OPT_INT, &stack_depth, "frames in a stack with --group-by stack (default 5)"},
        {"with-flops", 0, OPT_FLAG, &with_flops, "add FLOPs (PyTorch's formulas; unknown stays empty)"},
        {"by-step", 0, OPT_FLAG, &sc.by_step, "one group of rows per ProfilerStep#N (--limit: rows per step)"},
        {"no-device-rows", 0, OPT_FLAG, &no_device_rows,
         "leave out the GPU work's own rows (kernels, memcpy, memset per name; PyTorch lists them)"},
        OPT_END,
    };
    const struct cli_sort_keys keys[] = {{NULL, ops_sort_keys}, {NULL, NULL}};
    cli->sort_keys = keys; /* for --help */
    int n = cli_parse_options(argc, argv, opts, ops_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, ops_usage, cli->io.err);
        return 2;
    }
    if (strcmp(group_by, "name") != 0 && strcmp(group_by, "shape") != 0 && strcmp(group_by, "stack") != 0) {
        fprintf(cli->io.err, "%s: unknown --group-by '%s' (name, shape or stack)\n", cli->io.prog, group_by);
        return 2;
    }
    const char *sort = cli_report_sort(&sc, ops_sort_keys, cli);
    if (!sort)
        return 2;
    /* over a shard directory: each shard's own pass, by name (windows: scope_open refuses) */
    sc.shards_ok = !(with_flops || sc.by_step || strcmp(group_by, "name") != 0);
    sc.shards_each = ops_shard_pass;
    report_phase("ops: start");
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io);
    if (!db)
        return 1;
    report_phase("ops: scope");
    scope_hide_absent(db, &sc);
    sc.pytorch_bytes = 1; /* its memory columns equal key_averages()': in PyTorch's units */
    scope_tables(&sc, "no operators in this window");
    /* what would produce the data asked for, when the trace has none of it */
    static const struct {
        const char *sql, *note;
    } needs[] = {
        {"SELECT EXISTS (SELECT 1 FROM event WHERE args LIKE '%\"Input Dims\"%')",
         "no operator has input shapes, so FLOPs stay empty: profile with torch.profiler.profile(record_shapes=True)"},
        {"SELECT EXISTS (SELECT 1 FROM event WHERE kind = (SELECT id FROM kind WHERE name = 'python'))",
         "no Python frames in this trace, so every stack is empty: profile with torch.profiler.profile(with_stack=True)"},
    };
    int asked[2] = {with_flops || strcmp(sort, "flops") == 0 || strcmp(group_by, "shape") == 0, strcmp(group_by, "stack") == 0};
    for (int i = 0; i < 2; i++) {
        sqlite3_stmt *q = NULL;
        if (asked[i] && sqlite3_prepare_v2(db, needs[i].sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW &&
            !sqlite3_column_int(q, 0))
            fprintf(cli->io.err, "%s: %s\n", cli->io.prog,
                    i == 0 && report_is_legacy_export(db) ? "no operator has input shapes, so FLOPs stay empty: "
                                                            REPORT_LEGACY_EXPORT
                                                          : needs[i].note);
        sqlite3_finalize(q);
    }
    struct ops_sweep_options so = {.by_rank = sc.by_rank, .by_step = sc.by_step, .by_shape = strcmp(group_by, "shape") == 0,
                                   .with_flops = with_flops, .by_stack = strcmp(group_by, "stack") == 0,
                                   .windowed = sc.filtered, .as_stored = !sc.filtered && !sc.hta_rounding,
                                   .from_shards = shards_is_dir(argv[0]),
                                   .stack_depth = stack_depth, .sort = sort, .device_rows = !no_device_rows};
    if (ops_sweep(db, &so, &cli->io) != 0) {
        sqlite3_close(db);
        return 1;
    }
    sqlite3_stmt *st = report_prepare(db, "ops_agg", &cli->io);
    int rc = 1;
    if (st) {
        scope_bind(st, &sc, sort);
        rc = scope_render(st, &sc, &cli->io) != 0;
        sqlite3_finalize(st);
        report_phase("ops: render");
        if (rc == 0 && sc.format == FMT_TABLE)
            ops_footer(db, cli);
    }
    sqlite3_close(db);
    return rc;
}
