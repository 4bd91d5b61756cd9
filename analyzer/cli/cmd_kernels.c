/* cmd_kernels.c: `tracedb kernels run.db`: GPU work per name, nsys cuda_gpu_kern_sum style
 * (kernel_sweep.c's pass, then queries/kernels_summed.sql). */
#include "cli.h"
#include "kernel_sweep.h"
#include "pattern_sweep.h"
#include "report_options.h"
#include "type_sweep.h"
#include <string.h>

static const char kernels_usage[] =
    "tracedb kernels run.db [--kinds kernel,memcpy,memset] [--group-by name|launch | --by-type [--hta-rounding]]\n"
    "                       [--sort KEY] [--limit N] [--from T] [--to T] [--range NAME] [--by-rank | --by-step]\n"
    "                       [--format table|csv|json]\n"
    "       tracedb kernels run.db --patterns NAME [--min-kernels N] [--drop-last-step] [--limit N] [--format ...]";

static const char *const kernels_sort_keys[] = {
    "total_ns", "total_ns", "instances", "instances", "avg_ns", "avg_ns",
    "med_ns", "med_ns", "max_ns", "max_ns", "name", "name", NULL,
};

/* "kernel,memcpy" -> the three flags; -1 on an unknown kind. */
static int kernels_kinds(const char *list, int64_t flags[3])
{
    static const char *const names[3] = {"kernel", "memcpy", "memset"};
    flags[0] = flags[1] = flags[2] = 0;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        int found = 0;
        for (int i = 0; i < 3; i++)
            if (strlen(names[i]) == n && strncmp(p, names[i], n) == 0)
                flags[i] = found = 1;
        if (!found)
            return -1;
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

static const char *const pattern_sort_keys[] = {"count", "count", NULL};

/* --patterns NAME: HTA's frequent CUDA kernel sequences, per rank (analyzer/report/pattern_sweep.c, then
 * queries/kernels_patterns_summed.sql). */
static int kernel_patterns(const char *path, struct scope *sc, const char *name, int64_t min_kernels, struct cli *cli)
{
    if (!*name) {
        fprintf(cli->io.err, "%s: --patterns needs a name (a part of the host events' names: aten::linear)\n", cli->io.prog);
        return 2;
    }
    if (min_kernels < 1) {
        fprintf(cli->io.err, "%s: --min-kernels is 1 or more\n", cli->io.prog);
        return 2;
    }
    if (sc->sort && strcmp(sc->sort, "total_ns") == 0)
        sc->sort = "count"; /* the default of the other table */
    const char *sort = cli_report_sort(sc, pattern_sort_keys, cli);
    if (!sort)
        return 2;
    sc->by_rank = 1; /* per rank, always */
    const struct scope_param params[] = {{":name", name, 0}, {":min_kernels", NULL, min_kernels}, {NULL, NULL, 0}};
    sqlite3 *db = scope_open(path, sc, &cli->io);
    if (!db)
        return 1;
    scope_tables(sc, sc->filtered && !sc->drop_last_step ? "nothing in this window"
                                                         : "no host event with that name launched enough GPU work (--min-kernels)");
    int rc = pattern_sweep(db, name, min_kernels, &cli->io); /* one C pass */
    if (rc == 0)
        rc = scope_run(db, "kernels_patterns_summed", sc, sort, params, &cli->io);
    sqlite3_close(db);
    return rc;
}

int cmd_kernels(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "total_ns");
    const char *kinds = "kernel", *group_by = "name", *patterns = NULL;
    int by_type = 0;
    int64_t min_kernels = 3;
    const struct opt opts[] = {
        SCOPE_OPTIONS(sc),
        HTA_ROUNDING_OPTION(sc),
        {"kinds", 'k', OPT_STRING, &kinds, "kernel (default), memcpy, memset, comma-separated"},
        {"group-by", 'g', OPT_STRING, &group_by, "name (default) or launch (grid, block, registers, shared memory)"},
        {"by-step", 0, OPT_FLAG, &sc.by_step, "one group of rows per ProfilerStep#N, by launch time (--limit: per step)"},
        {"by-type", 0, OPT_FLAG, &by_type, "HTA's kernel type breakdown: computation, communication, both; memory, other"},
        {"patterns", 0, OPT_STRING, &patterns, "HTA's frequent kernel sequences under the host events whose name holds NAME"},
        {"min-kernels", 0, OPT_INT, &min_kernels, "with --patterns: sequences of at least N GPU operations (3)"},
        OPT_END,
    };
    const struct cli_sort_keys keys[] = {{NULL, kernels_sort_keys}, {"--patterns", pattern_sort_keys}, {NULL, NULL}};
    cli->sort_keys = keys; /* for --help */
    int n = cli_parse_options(argc, argv, opts, kernels_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, kernels_usage, cli->io.err);
        return 2;
    }
    if (patterns && (sc.by_step || by_type || strcmp(group_by, "name") != 0 || strcmp(kinds, "kernel") != 0)) {
        fprintf(cli->io.err, "%s: --patterns goes with none of --by-step, --by-type, --group-by, --kinds\n", cli->io.prog);
        return 2;
    }
    if (sc.hta_rounding && !by_type) {
        fprintf(cli->io.err, "%s: --hta-rounding goes with --by-type\n", cli->io.prog);
        return 2;
    }
    if (patterns)
        return kernel_patterns(argv[0], &sc, patterns, min_kernels, cli);
    int64_t flags[3];
    if (kernels_kinds(kinds, flags) != 0) {
        fprintf(cli->io.err, "%s: unknown --kinds '%s' (kernel, memcpy, memset)\n", cli->io.prog, kinds);
        return 2;
    }
    if (strcmp(group_by, "name") != 0 && strcmp(group_by, "launch") != 0) {
        fprintf(cli->io.err, "%s: unknown --group-by '%s' (name or launch)\n", cli->io.prog, group_by);
        return 2;
    }
    const char *sort = cli_report_sort(&sc, kernels_sort_keys, cli);
    if (!sort)
        return 2;
    /* by name (or type) the GPU rows alone serve: a shard directory's reduce database holds them */
    sc.shards_ok = !sc.by_step && strcmp(group_by, "name") == 0 ? 2 : 0;
    sc.shards_last_step = 1;
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io);
    if (!db)
        return 1;
    const struct scope_param params[] = {
        {":kernel", NULL, flags[0]}, {":memcpy", NULL, flags[1]}, {":memset", NULL, flags[2]},
        {":group_by", group_by, 0},  {NULL, NULL, 0},
    };
    scope_tables(&sc, sc.filtered ? "no GPU work of these kinds in this window"
                                  : "no GPU work of these kinds in this trace (a CPU-only trace has none)");
    if (by_type && sc.by_step) {
        fprintf(cli->io.err, "%s: --by-type and --by-step do not go together\n", cli->io.prog);
        sqlite3_close(db);
        return 2;
    }
    /* each rank's unions, or the sums: one C pass, then its query prints them */
    int rc = by_type ? type_sweep(db, 0, &cli->io)
                     : kernel_sweep(db, sc.by_rank, strcmp(group_by, "launch") == 0, sc.by_step, flags, &cli->io);
    if (rc == 0)
        rc = scope_run(db, by_type ? "kernels_by_type" : "kernels_summed", &sc, sort, params, &cli->io);
    sqlite3_close(db);
    return rc;
}
