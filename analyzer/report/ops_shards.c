/* ops_shards.c: `tracedb ops` (and summary's top operators) over a shard directory (see ops_sweep.h). Each
 * shard's own pass runs on the shard, by rank and with the device rows, and its rows go into the reduce
 * database's table shard_ops (ops_shard_pass in ops_sweep.c, called by shards_open for each shard);
 * tracedb-mpi's processes carry that table from one reduce database into another (shards_add). The pass over the
 * reduce database then takes those rows as its groups (ops_shard_groups) and writes them as it writes the
 * events' (ops_write.c): integer sums, so the rows equal the pass over one database of every trace.
 * PyTorch's rules that need every event (the merge of an only same-name child, the bytes of the [memory]
 * events an operator's time holds) are within one trace, so within one shard. */
#include "ops_sweep_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    int present = -1; /* a directory of no shard (or processes given none) made no table: no groups */
    if (sqlite3_prepare_v2(p->db, "SELECT EXISTS (SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = 'shard_ops')",
                           -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        present = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (present <= 0)
        return present;
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
