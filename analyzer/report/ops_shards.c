/* ops_shards.c: `tracedb ops` (and summary's top operators) over a shard directory (see ops_sweep.h). Each
 * shard's own pass runs on the shard, by rank and with the device rows, and its rows go into the reduce
 * database's table shard_ops (ops_shard_pass, called by shards_open for each shard); tracedb-mpi's
 * processes carry that table from one reduce database into another (shards_add). The pass over the
 * reduce database then takes those rows as its groups (ops_shard_groups) and writes them as it writes the
 * events' (ops_write.c): integer sums, so the rows equal the pass over one database of every trace.
 * PyTorch's rules that need every event (the merge of an only same-name child, the bytes of the [memory]
 * events an operator's time holds) are within one trace, so within one shard. */
#include "ops_sweep_internal.h"
#include "scope.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns a shard's rows carry, in temp.ops_agg's names (ops_write.c). */
#define SHARD_OPS_COLUMNS                                                                                     \
    "rank, name, device, calls, self_cpu_ns, cpu_total_ns, self_device_ns, device_total_ns, cpu_mem_bytes, " \
    "self_cpu_mem_bytes, device_mem_bytes, self_device_mem_bytes"
enum { SHARD_OPS_N = 12 };

int ops_shard_pass(sqlite3 *reduce, const char *shard_path, struct report_io *io)
{
    struct scope sc;
    scope_init(&sc, "name");
    sc.quiet = 1;
    sqlite3 *src = scope_open(shard_path, &sc, io);
    if (!src)
        return -1;
    const struct ops_sweep_options so = {.by_rank = 1, .device_rows = 1, .sort = "name", .windowed = sc.filtered};
    sqlite3_stmt *rows = NULL, *ins = NULL;
    sqlite3 *failed = NULL; /* the connection whose error to say (ops_sweep says its own) */
    int rc = -1, step = SQLITE_DONE;
    if (ops_sweep(src, &so, io) != 0)
        goto done;
    failed = src;
    if (sqlite3_prepare_v2(src, "SELECT " SHARD_OPS_COLUMNS " FROM temp.ops_agg ORDER BY seq", -1, &rows, NULL) != SQLITE_OK)
        goto done;
    failed = reduce;
    if (sqlite3_exec(reduce, "CREATE TABLE IF NOT EXISTS main.shard_ops (" SHARD_OPS_COLUMNS ")", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(reduce, "INSERT INTO main.shard_ops (" SHARD_OPS_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                                   "?11, ?12)", -1, &ins, NULL) != SQLITE_OK)
        goto done;
    while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
        for (int i = 0; i < SHARD_OPS_N; i++)
            sqlite3_bind_value(ins, i + 1, sqlite3_column_value(rows, i));
        if (sqlite3_step(ins) != SQLITE_DONE)
            goto done;
        sqlite3_reset(ins);
    }
    failed = step == SQLITE_DONE ? NULL : src;
    rc = failed ? -1 : 0;
done:
    if (failed)
        fprintf(io->err, "%s: the operators of shard %s: %s\n", io->prog, shard_path, sqlite3_errmsg(failed));
    sqlite3_finalize(rows), sqlite3_finalize(ins);
    sqlite3_close(src);
    return rc;
}

/* A shard row's group: by its rank (by_rank; one key per value, as GROUP BY puts values together), its
 * name (an index of its own: the reduce database's strings do not hold the names as they read, such as
 * ProfilerStep*) and whether it is a device row. NULL when out of memory. */
static struct group *shard_group(struct ops_pass *p, sqlite3_stmt *st, struct strmap *names, struct strmap *ranks,
                                 size_t *cap_ranks, struct buf *key)
{
    const char *name = (const char *)sqlite3_column_text(st, 1);
    size_t len = name ? (size_t)sqlite3_column_bytes(st, 1) : 0;
    int64_t name_id = name ? strmap_get(names, name, len) : -1, rank_key = -1;
    if (name && name_id < 0 && strmap_put(names, name, len, name_id = (int64_t)names->count) != 0)
        return NULL;
    const sqlite3_value *rank = NULL;
    if (p->o->by_rank) {
        key->n = 0;
        if (ops_key_add(key, sqlite3_column_value(st, 0)) != 0)
            return NULL;
        rank_key = strmap_get(ranks, key->p, key->n);
        if (rank_key < 0) {
            sqlite3_value *v = sqlite3_value_dup(sqlite3_column_value(st, 0));
            sqlite3_value **r = v ? ops_push((void **)&p->ranks, &p->nranks, cap_ranks, sizeof *r) : NULL;
            if (!r) {
                sqlite3_value_free(v);
                return NULL;
            }
            *r = v;
            if (strmap_put(ranks, key->p, key->n, rank_key = (int64_t)p->nranks - 1) != 0)
                return NULL;
        }
        rank = p->ranks[rank_key];
    }
    int32_t device = sqlite3_column_int(st, 2) != 0;
    int fresh = 0;
    struct group *g = ops_group_key(key, rank_key, name_id, 0, device, NULL) == 0
                          ? sweep_index_get(&p->part[0].groups, key->p, key->n, &fresh)
                          : NULL;
    if (g && fresh) {
        g->rank = rank, g->rank_key = rank_key, g->name_id = name_id, g->device = device;
        if (name && !(g->name = strdup(name)))
            return NULL; /* (a group without its name: free_part frees what it has) */
    }
    return g;
}

int ops_shard_groups(struct ops_pass *p)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(p->db, "SELECT " SHARD_OPS_COLUMNS " FROM main.shard_ops", -1, &st, NULL) != SQLITE_OK)
        return -1;
    struct strmap names, ranks;
    strmap_init(&names);
    strmap_init(&ranks);
    struct buf key = {0};
    size_t cap_ranks = 0;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        struct group *g = shard_group(p, st, &names, &ranks, &cap_ranks, &key);
        if (!g) {
            rc = -1;
            break;
        }
        struct sums s = {0};
        int64_t *const v[] = {&s.calls, &s.self_cpu, &s.cpu_total, &s.self_dev, &s.dev_total,
                              &s.cpu_mem, &s.self_cpu_mem, &s.dev_mem, &s.self_dev_mem};
        for (int i = 0; i < 9; i++)
            *v[i] = sqlite3_column_int64(st, 3 + i);
        ops_sums_add(&p->overflow, &g->s, &s);
        if (!g->device)
            ops_add(&p->overflow, &p->part[0].total_self_cpu, s.self_cpu);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    sqlite3_finalize(st);
    strmap_free(&names);
    strmap_free(&ranks);
    buf_free(&key);
    return rc;
}
