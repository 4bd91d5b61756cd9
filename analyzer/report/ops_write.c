/* ops_write.c: `tracedb ops`'s groups written (see ops_sweep_internal.h): merged by the names they read
 * as (every ProfilerStep#N as ProfilerStep*), ordered as queries/ops_agg.sql's ORDER BY would order them,
 * each with its percentages' base and its place in its step, into temp.ops_agg (the device rows where
 * asked for); the totals into temp.ops_totals. The device time base is PyTorch's "Self CUDA time total":
 * the device rows' (profiler_util.py's _build_table sums the events of DeviceType.CUDA), listed or not. */
#include "ops_sweep_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* A group's name as it reads (every ProfilerStep#N as ProfilerStep*), looked up once per name id: a
 * name repeats in every step (30,316 groups of 2,332 steps on 2 M events). NULL: no such string. 0, or -1
 * (out of memory, or an SQLite error). */
struct name_entry {
    char *text; /* NULL: no such string */
};

static int name_read(sqlite3_stmt *name_of, struct sweep_index *names, int64_t name_id, const char **name)
{
    int fresh;
    struct name_entry *e = sweep_index_get(names, &name_id, sizeof name_id, &fresh);
    if (!e)
        return -1;
    if (fresh) {
        sqlite3_bind_int64(name_of, 1, name_id);
        int step = sqlite3_step(name_of);
        const unsigned char *t = step == SQLITE_ROW ? sqlite3_column_text(name_of, 0) : NULL;
        if (t && !(e->text = strdup((const char *)t)))
            step = SQLITE_NOMEM;
        sqlite3_reset(name_of);
        if (step != SQLITE_ROW && step != SQLITE_DONE) {
            free(e->text), e->text = NULL;
            return -1;
        }
    }
    *name = e->text;
    return 0;
}

/* SQL's classes of values in ORDER BY: NULL (a NULL pointer too), numbers, text, blobs. */
static int value_class(const sqlite3_value *v)
{
    int t = v ? sqlite3_value_type((sqlite3_value *)v) : SQLITE_NULL;
    return t == SQLITE_NULL ? 0 : t == SQLITE_INTEGER || t == SQLITE_FLOAT ? 1 : t == SQLITE_TEXT ? 2 : 3;
}

/* A number as SQL compares it: integers exactly, an integer and a real through long double (as SQLite). */
struct number {
    int real;
    int64_t i;
    double d;
};

static int cmp_number(struct number a, struct number b)
{
    if (!a.real && !b.real)
        return (a.i > b.i) - (a.i < b.i);
    long double x = a.real ? (long double)a.d : (long double)a.i, y = b.real ? (long double)b.d : (long double)b.i;
    return (x > y) - (x < y);
}

/* Two values as ORDER BY compares them with the BINARY collation. */
static int cmp_value(const sqlite3_value *a, const sqlite3_value *b)
{
    int ca = value_class(a), cb = value_class(b);
    if (ca != cb || ca == 0)
        return (ca > cb) - (ca < cb);
    sqlite3_value *x = (sqlite3_value *)a, *y = (sqlite3_value *)b; /* sqlite3_value_* take no const */
    if (ca == 1) {
        struct number m = {sqlite3_value_type(x) == SQLITE_FLOAT, sqlite3_value_int64(x), sqlite3_value_double(x)};
        struct number n = {sqlite3_value_type(y) == SQLITE_FLOAT, sqlite3_value_int64(y), sqlite3_value_double(y)};
        return cmp_number(m, n);
    }
    int nx = sqlite3_value_bytes(x), ny = sqlite3_value_bytes(y), n = nx < ny ? nx : ny;
    int c = n ? memcmp(sqlite3_value_blob(x), sqlite3_value_blob(y), (size_t)n) : 0;
    return c ? c : (nx > ny) - (nx < ny);
}

/* Two texts, NULL first (names and shapes: C strings, as they were bound). */
static int cmp_text(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

/* A merged group on its way into temp.ops_agg: what orders it, and its rank's totals. */
struct ordered {
    const struct group *m;
    struct number key;           /* the --sort column's value (queries/parts/ops_sort_key.sql's sort_key) */
    struct rank_tot *rank; /* its rank's (step's) totals */
    const char *stack;     /* by stack: its text */
};

struct rank_tot { /* a rank's (step's) rows: the percentages' base with --by-step, its start, its rows so far */
    int64_t cpu, dev, rows;
    sqlite3_value *start; /* --by-step: the step's first start; NULL: none, or not by step (all equal) */
};

static int cmp_ordered(const void *a, const void *b)
{
    const struct ordered *x = a, *y = b;
    int c = cmp_value(x->rank->start, y->rank->start);
    if (!c)
        c = cmp_number(y->key, x->key); /* descending */
    if (!c)
        c = cmp_value(x->m->rank, y->m->rank);
    if (!c)
        c = cmp_text(x->m->name, y->m->name);
    if (!c)
        c = cmp_text(x->m->shapes, y->m->shapes);
    if (!c)
        c = cmp_text(x->stack, y->stack);
    if (!c)
        c = (x->m->device > y->m->device) - (x->m->device < y->m->device); /* a CPU-side row before a device row */
    return c;
}

/* The value a group sorts by, as queries/parts/ops_sort_key.sql reads it from the row it becomes. */
static struct number sort_key(const struct group *m, const char *sort)
{
    static const char *const cols[] = {"calls", "cpu_total_ns", "self_device_ns", "device_total_ns", "cpu_mem_bytes",
                                       "self_cpu_mem_bytes", "device_mem_bytes", "self_device_mem_bytes"};
    const int64_t v[] = {m->s.calls, m->s.cpu_total, m->s.self_dev, m->s.dev_total,
                         m->s.cpu_mem, m->s.self_cpu_mem, m->s.dev_mem, m->s.self_dev_mem};
    if (sort && strcmp(sort, "name") == 0)
        return (struct number){0, 0, 0};
    if (sort && strcmp(sort, "flops") == 0)
        return !m->s.flops_seen   ? (struct number){0, -1, 0}
               : m->s.flops_real ? (struct number){1, 0, (double)m->s.flops_d}
                                 : (struct number){0, m->s.flops_i, 0};
    for (size_t i = 0; sort && i < sizeof cols / sizeof *cols; i++)
        if (strcmp(sort, cols[i]) == 0)
            return (struct number){0, v[i], 0};
    return (struct number){0, m->s.self_cpu, 0};
}

/* Each rank's (step's) totals and, by step, its first start (min(start_ns) of the steps of its name),
 * found by the rank's value; rank_of[i]: merged group i's, its index in ranks. 0, or -1 (out of memory,
 * or an SQLite error). */
static int rank_totals(struct ops_pass *p, struct sweep_index *merged, struct sweep_index *ranks, size_t *rank_of)
{
    struct buf key = {0};
    int rc = 0, fresh;
    for (size_t i = 0; rc == 0 && i < merged->n; i++) { /* in the rows' order, as SQL's sum() added them */
        const struct group *m = sweep_index_at(merged, i);
        key.n = 0;
        struct rank_tot *t = ops_key_add(&key, m->rank) == 0 ? sweep_index_get(ranks, key.p, key.n, &fresh) : NULL;
        if (!t)
            rc = -1;
        else {
            ops_add(&p->overflow, &t->cpu, m->s.self_cpu);
            if (m->device)
                ops_add(&p->overflow, &t->dev, m->s.self_dev);
            rank_of[i] = (size_t)((char *)t - ranks->groups) / ranks->size;
        }
    }
    sqlite3_stmt *st = NULL;
    if (rc == 0 && p->o->by_step &&
        sqlite3_prepare_v2(p->db, "SELECT name, min(start_ns) FROM temp.scope_steps WHERE name IS NOT NULL GROUP BY name",
                           -1, &st, NULL) != SQLITE_OK)
        rc = -1;
    int step = SQLITE_DONE;
    while (rc == 0 && st && (step = sqlite3_step(st)) == SQLITE_ROW) {
        key.n = 0;
        int64_t at = ops_key_add(&key, sqlite3_column_value(st, 0)) == 0 ? strmap_get(&ranks->map, key.p, key.n) : -2;
        struct rank_tot *t = at >= 0 ? sweep_index_at(ranks, (size_t)at) : NULL;
        if (at == -2 || (t && !(t->start = sqlite3_value_dup(sqlite3_column_value(st, 1)))))
            rc = -1;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    sqlite3_finalize(st);
    buf_free(&key);
    return rc;
}

#define OPS_AGG_COLUMNS 19
#define OPS_AGG_BATCH 32

/* An INSERT of OPS_AGG_BATCH rows into temp.ops_agg (made by ops_write_groups). NULL: an SQLite error. */
static sqlite3_stmt *insert_many(sqlite3 *db)
{
    static const char head[] = "INSERT INTO temp.ops_agg VALUES ";
    struct buf sql = {0};
    int oom = buf_add(&sql, head, sizeof head - 1) != 0;
    for (int r = 0; r < OPS_AGG_BATCH; r++)
        for (int c = 0; c < OPS_AGG_COLUMNS; c++) {
            char one[16];
            int n = snprintf(one, sizeof one, "%s?%d%s", c ? ", " : r ? ", (" : "(", r * OPS_AGG_COLUMNS + c + 1,
                             c + 1 == OPS_AGG_COLUMNS ? ")" : "");
            oom |= buf_add(&sql, one, (size_t)n) != 0;
        }
    sqlite3_stmt *st = NULL;
    if (!oom)
        sqlite3_prepare_v2(db, sql.p, (int)sql.n, &st, NULL);
    buf_free(&sql);
    return st;
}

/* The merged groups into temp.ops_agg in the order queries/ops_agg.sql prints them (ORDER BY seq, no
 * sort there: SQLite's sort of 30,316 rows of 24 columns took half of that query), each with the base of
 * its percentages (its step's totals by step, else every row's, as SQL's sum() adds them: self CPU time
 * of every row, device time of the device rows) and its place in its step (for --limit by step); device
 * rows only where asked for. The order is SQL's ORDER BY: by step, the step's first start; then the
 * --sort value, descending; then rank, name, shapes, stack and device, as ORDER BY compares values. 0, or
 * -1 (out of memory, or an SQLite error). */
static int write_ordered(struct ops_pass *p, struct sweep_index *merged, sqlite3_stmt *ins)
{
    struct sweep_index ranks;
    sweep_index_init(&ranks, sizeof(struct rank_tot));
    struct ordered *v = merged->n ? malloc(merged->n * sizeof *v) : NULL;
    size_t *rank_of = merged->n ? malloc(merged->n * sizeof *rank_of) : NULL;
    int64_t cpu = 0, dev = 0;
    int rc = merged->n && (!v || !rank_of) ? -1 : rank_totals(p, merged, &ranks, rank_of);
    for (size_t i = 0; rc == 0 && i < merged->n; i++) { /* the ranks are all made: their places hold */
        const struct group *m = sweep_index_at(merged, i);
        v[i] = (struct ordered){m, sort_key(m, p->o->sort), sweep_index_at(&ranks, rank_of[i]),
                                p->stacks ? op_stacks_text(p->stacks, m->stack) : NULL};
        ops_add(&p->overflow, &cpu, m->s.self_cpu);
        if (m->device)
            ops_add(&p->overflow, &dev, m->s.self_dev);
    }
    p->total_device = dev;
    if (rc == 0 && merged->n)
        qsort(v, merged->n, sizeof *v, cmp_ordered);
    /* the rows written OPS_AGG_BATCH to a statement (each statement's own work, a fifth of a row's, once
     * a batch), the rest one by one */
    size_t listed = 0;
    for (size_t i = 0; i < merged->n; i++)
        listed += !v[i].m->device || p->o->device_rows;
    sqlite3_stmt *many = listed >= OPS_AGG_BATCH ? insert_many(p->db) : NULL;
    if (listed >= OPS_AGG_BATCH && !many)
        rc = -1;
    for (size_t i = 0, k = 0, left = listed; rc == 0 && !p->overflow && i < merged->n; i++) {
        const struct group *m = v[i].m;
        struct rank_tot *t = v[i].rank;
        if (m->device && !p->o->device_rows)
            continue; /* in the totals, not listed */
        sqlite3_stmt *st = left >= OPS_AGG_BATCH - k ? many : ins; /* (a batch begun is filled) */
        int at = st == many ? (int)k * OPS_AGG_COLUMNS : 0;
        sqlite3_bind_int64(st, at + 1, (int64_t)i + 1);
        if (m->rank)
            sqlite3_bind_value(st, at + 2, m->rank);
        else
            sqlite3_bind_null(st, at + 2);
        sqlite3_bind_text(st, at + 3, m->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, at + 4, m->shapes, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, at + 5, v[i].stack, -1, SQLITE_STATIC);
        const int64_t s[] = {m->s.calls, m->s.self_cpu, m->s.cpu_total, m->s.self_dev, m->s.dev_total,
                             m->s.cpu_mem, m->s.self_cpu_mem, m->s.dev_mem, m->s.self_dev_mem};
        for (int c = 0; c < 9; c++)
            sqlite3_bind_int64(st, at + 6 + c, s[c]);
        if (!m->s.flops_seen)
            sqlite3_bind_null(st, at + 15);
        else if (m->s.flops_real)
            sqlite3_bind_double(st, at + 15, (double)m->s.flops_d);
        else
            sqlite3_bind_int64(st, at + 15, m->s.flops_i);
        sqlite3_bind_int64(st, at + 16, p->o->by_step ? t->cpu : cpu);
        sqlite3_bind_int64(st, at + 17, p->o->by_step ? t->dev : dev);
        sqlite3_bind_int64(st, at + 18, ++t->rows);
        sqlite3_bind_int(st, at + 19, m->device);
        if (st == many && ++k < OPS_AGG_BATCH)
            continue;
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(st);
        left -= st == many ? k : 1;
        k = 0;
    }
    sqlite3_finalize(many);
    for (size_t i = 0; i < ranks.n; i++)
        sqlite3_value_free(((struct rank_tot *)sweep_index_at(&ranks, i))->start);
    sweep_index_free(&ranks);
    free(v), free(rank_of);
    return rc;
}

/* Groups merged by the name they read as, into temp.ops_agg (write_ordered); the footer's totals into
 * temp.ops_totals. */
int ops_write_groups(struct ops_pass *p)
{
    sqlite3_stmt *ins, *name_of;
    if (sweep_table(p->db, "ops_agg (seq INTEGER PRIMARY KEY, rank, name, input_shapes, stack, calls, self_cpu_ns, "
                           "cpu_total_ns, self_device_ns, device_total_ns, cpu_mem_bytes, self_cpu_mem_bytes, "
                           "device_mem_bytes, self_device_mem_bytes, flops, base_cpu_ns, base_device_ns, n_in_step, device)",
                    OPS_AGG_COLUMNS, &ins, p->io) != 0)
        return -1;
    if (sqlite3_prepare_v2(p->db, "SELECT CASE WHEN value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE value END "
                                  "FROM main.string WHERE id = ?1", -1, &name_of, NULL) != SQLITE_OK) {
        sqlite3_finalize(ins);
        return -1;
    }
    struct sweep_index merged, names;
    sweep_index_init(&merged, sizeof(struct group));
    sweep_index_init(&names, sizeof(struct name_entry));
    struct buf key = {0};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < p->part[0].groups.n; i++) {
        struct group *g = sweep_index_at(&p->part[0].groups, i);
        if (g->s.calls == 0)
            continue; /* every event of it merged into its parent (ops_merge.c) */
        const char *name = g->name; /* a shard's row's (ops_shards.c); else its id's */
        if (!name && name_read(name_of, &names, g->name_id, &name) != 0) {
            rc = -1;
            break;
        }
        size_t len = name ? strlen(name) : 0;
        const char *stack = p->stacks ? op_stacks_text(p->stacks, g->stack) : NULL;
        unsigned char has_name = name != NULL, has_shapes = g->shapes != NULL, has_stack = stack != NULL,
                      device = (unsigned char)g->device;
        key.n = 0;
        int fresh = 0;
        struct group *m = NULL;
        if (ops_key_add(&key, g->rank) == 0 && buf_add(&key, &has_name, 1) == 0 && buf_add(&key, &len, sizeof len) == 0 &&
            (!len || buf_add(&key, name, len) == 0) && buf_add(&key, &has_shapes, 1) == 0 &&
            (!has_shapes || buf_add(&key, g->shapes, strlen(g->shapes) + 1) == 0) && buf_add(&key, &has_stack, 1) == 0 &&
            (!has_stack || buf_add(&key, stack, strlen(stack) + 1) == 0) && buf_add(&key, &device, 1) == 0)
            m = sweep_index_get(&merged, key.p, key.n, &fresh);
        if (m && fresh) {
            m->rank = g->rank, m->stack = g->stack, m->device = g->device;
            m->shapes = g->shapes, g->shapes = NULL;
            if (name && !(m->name = strdup(name)))
                m = NULL;
        }
        if (!m) {
            rc = -1;
            break;
        }
        ops_sums_add(&p->overflow, &m->s, &g->s);
    }
    if (rc == 0 && !p->overflow)
        rc = write_ordered(p, &merged, ins);
    for (size_t i = 0; i < merged.n; i++) {
        struct group *m = sweep_index_at(&merged, i);
        free(m->name);
        free(m->shapes);
    }
    for (size_t i = 0; i < names.n; i++)
        free(((struct name_entry *)sweep_index_at(&names, i))->text);
    sweep_index_free(&merged);
    sweep_index_free(&names);
    buf_free(&key);
    sqlite3_finalize(name_of);
    sqlite3_finalize(ins);
    sqlite3_stmt *tot;
    if (rc == 0 && !p->overflow && sweep_table(p->db, "ops_totals (self_cpu_ns, device_ns)", 2, &tot, p->io) == 0) {
        sqlite3_bind_int64(tot, 1, p->part[0].total_self_cpu);
        sqlite3_bind_int64(tot, 2, p->total_device);
        rc = sqlite3_step(tot) == SQLITE_DONE ? 0 : -1;
        sqlite3_finalize(tot);
    }
    return rc;
}
