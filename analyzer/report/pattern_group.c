/* pattern_group.c: `tracedb kernels --patterns`'s sequences grouped (see pattern_sweep_internal.h):
 * each root's sequence of GPU operations, grouped by their names' ids, then by their text, into temp
 * table pattern_stats. */
#include "pattern_sweep_internal.h"
#include "report.h"
#include "time_range.h"
#include <stdlib.h>
#include <string.h>

/* The names of the roots and their operations: each name id's text (NULL: no string row; SQL's join drops it). */
struct pat_strings {
    int64_t *id;
    char **text;
    size_t *len;
    size_t n;
};

static int pat_string(const struct pat_strings *s, int64_t id, const char **text, size_t *len)
{
    size_t k = pat_find(s->id, s->n, sizeof *s->id, id);
    if (k == s->n || !s->text[k])
        return 0;
    *text = s->text[k], *len = s->len[k];
    return 1;
}

/* Looks the texts of ids[0..n) up (distinct; sorted here). 0, 2 (a name not text), or -2 (printed). */
static int pat_strings_load(struct pat *c, struct pat_strings *s, int64_t *ids, size_t n)
{
    qsort(ids, n, sizeof *ids, pat_i64_order);
    size_t u = n;
    s->id = ids, s->n = u;
    s->text = calloc(u ? u : 1, sizeof *s->text), s->len = calloc(u ? u : 1, sizeof *s->len);
    sqlite3_stmt *st = NULL;
    int rc = s->text && s->len ? 0 : -3;
    if (rc == 0 && sqlite3_prepare_v2(c->db, "SELECT value FROM main.string WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        rc = -1;
    for (size_t k = 0; rc == 0 && k < u; k++) {
        sqlite3_bind_int64(st, 1, ids[k]);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            if (sqlite3_column_type(st, 0) != SQLITE_TEXT) /* a name tracedb writes is text */
                rc = sweep_refusal_set(&c->refusal, "string", "value", "a value that is not text", "string", ids[k]) + 1;
            const unsigned char *t = sqlite3_column_text(st, 0);
            size_t len = (size_t)sqlite3_column_bytes(st, 0);
            if (rc == 0 && !(s->text[k] = malloc(len + 1)))
                rc = -3;
            if (rc == 0)
                memcpy(s->text[k], t ? (const char *)t : "", len), s->text[k][len] = 0, s->len[k] = len;
        } else if (step != SQLITE_DONE) {
            rc = -1;
        }
        sqlite3_reset(st);
    }
    if (rc == -1)
        fprintf(c->io->err, "%s: %s\n", c->io->prog, sqlite3_errmsg(c->db));
    if (rc == -3)
        fprintf(c->io->err, "%s: out of memory\n", c->io->prog);
    sqlite3_finalize(st);
    return rc < 0 ? -2 : rc;
}

static void pat_strings_free(struct pat_strings *s)
{
    for (size_t k = 0; s->text && k < s->n; k++)
        free(s->text[k]);
    free(s->id), free(s->text), free(s->len);
}

/* A group of roots with one rank, root name and sequence of operation names (by id), then of one text. */
struct pat_group {
    int64_t count, gpu, cpu, kernels;
    size_t first_op, root; /* the first occurrence's: its operations begin at ops[first_op] */
};

/* Room for len bytes in a growing buffer. 0, or -1. */
static int pat_buf(char **b, size_t *cap, size_t len)
{
    if (len <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 256;
    while (nc < len)
        nc *= 2;
    char *p = realloc(*b, nc);
    if (!p)
        return -1;
    *b = p, *cap = nc;
    return 0;
}

/* The pattern's text key of a group: its rank, then "root|op|op|...". Its length, or 0 when out of memory. */
static size_t pat_text(const struct pat_strings *s, const struct pat_root *root, const struct pat_op *ops, size_t n,
                       char **b, size_t *cap)
{
    const char *t = "";
    size_t len = sizeof root->rank, l = 0;
    pat_string(s, root->name_id, &t, &l); /* (a group's root has its name) */
    if (pat_buf(b, cap, len + l) != 0)
        return 0;
    memcpy(*b, &root->rank, sizeof root->rank), memcpy(*b + len, t, l), len += l;
    for (size_t k = 0; k < n; k++) {
        if (!pat_string(s, ops[k].name_id, &t, &l))
            continue;
        if (pat_buf(b, cap, len + 1 + l) != 0)
            return 0;
        (*b)[len++] = '|', memcpy(*b + len, t, l), len += l;
    }
    return len;
}

/* Group g's text key (pat_text of its first occurrence): its length, or 0 when out of memory. */
static size_t pat_group_text(const struct pat_strings *s, const struct pat_root *roots, const struct pat_op *ops, size_t n_ops,
                             const struct pat_group *g, char **b, size_t *cap)
{
    size_t end = g->first_op;
    while (end < n_ops && ops[end].root == g->root)
        end++;
    return pat_text(s, &roots[g->root], ops + g->first_op, end - g->first_op, b, cap);
}

/* Groups the roots' sequences and writes them into temp.pattern_stats. 0, 2, or -2 (printed). */
int pat_group(struct pat *c, const struct pat_root *roots, size_t n_roots, struct pat_op *ops, size_t n_ops,
                     int64_t min_kernels)
{
    struct pat_strings s = {0};
    int64_t *ids = malloc((n_roots + n_ops + 1) * sizeof *ids);
    if (!ids) {
        fprintf(c->io->err, "%s: out of memory\n", c->io->prog);
        return -2;
    }
    /* the distinct names (few: a sort of every operation's cost a tenth of the report) */
    size_t n_ids = 0;
    struct strmap seen;
    strmap_init(&seen);
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < n_ops; k++) {
        int64_t id[2] = {ops[k].name_id, roots[ops[k].root].name_id};
        for (int j = 0; j < 2; j++)
            if ((j == 0 || k == 0 || ops[k].root != ops[k - 1].root) && (n_ids == 0 || ids[n_ids - 1] != id[j]) &&
                strmap_get(&seen, &id[j], sizeof id[j]) < 0) {
                if (strmap_put(&seen, &id[j], sizeof id[j], 0) != 0)
                    rc = -3;
                ids[n_ids++] = id[j];
            }
    }
    strmap_free(&seen);
    if (rc != 0) {
        free(ids);
        fprintf(c->io->err, "%s: out of memory\n", c->io->prog);
        return -2;
    }
    rc = pat_strings_load(c, &s, ids, n_ids);
    struct sweep_index by_ids, by_text;
    sweep_index_init(&by_ids, sizeof(struct pat_group));
    sweep_index_init(&by_text, sizeof(struct pat_group));
    char *key_buf = NULL; /* (bytes, seen as the key's integers) */
    size_t key_cap = 0;
    char *text = NULL;
    size_t text_cap = 0;
    sqlite3_stmt *ins = NULL;
    /* by rank, root name and operation names' ids: most roots repeat a few sequences */
    for (size_t k = 0; rc == 0 && k < n_ops;) {
        size_t end = k, r = ops[k].root;
        while (end < n_ops && ops[end].root == r)
            end++;
        const char *t;
        size_t l, n = 0, len = 2;
        int64_t gpu = 0;
        for (size_t j = k; j < end; j++)
            if (pat_string(&s, ops[j].name_id, &t, &l))
                n++, gpu = tdb_sat_add(gpu, ops[j].dur);
        if (n > 0 && (int64_t)n >= min_kernels && pat_string(&s, roots[r].name_id, &t, &l)) {
            if (pat_buf(&key_buf, &key_cap, (2 + (end - k)) * sizeof(int64_t)) != 0) {
                rc = -3;
                break;
            }
            int64_t *key = (int64_t *)(void *)key_buf;
            key[0] = roots[r].rank, key[1] = roots[r].name_id;
            for (size_t j = k; j < end; j++)
                if (pat_string(&s, ops[j].name_id, &t, &l))
                    key[len++] = ops[j].name_id;
            int fresh;
            struct pat_group *g = sweep_index_get(&by_ids, key, len * sizeof *key, &fresh);
            if (!g) {
                rc = -3;
                break;
            }
            if (fresh)
                g->first_op = k, g->root = r, g->kernels = (int64_t)n;
            g->count++, g->gpu = tdb_sat_add(g->gpu, gpu), g->cpu = tdb_sat_add(g->cpu, roots[r].dur);
        }
        k = end;
    }
    /* by text: names holding '|' may make two sequences one pattern, as SQL's text does */
    for (size_t k = 0; rc == 0 && k < by_ids.n; k++) {
        const struct pat_group *g = sweep_index_at(&by_ids, k);
        size_t len = pat_group_text(&s, roots, ops, n_ops, g, &text, &text_cap);
        int fresh;
        struct pat_group *x = len ? sweep_index_get(&by_text, text, len, &fresh) : NULL;
        if (!x) {
            rc = -3;
            break;
        }
        g = sweep_index_at(&by_ids, k); /* (the other map's growth moves nothing of this one) */
        if (fresh)
            *x = (struct pat_group){0, 0, 0, g->kernels, g->first_op, g->root};
        x->count += g->count, x->gpu = tdb_sat_add(x->gpu, g->gpu), x->cpu = tdb_sat_add(x->cpu, g->cpu);
    }
    if (rc == 0 && sweep_table(c->db, "pattern_stats (rank, count, kernels, gpu_ns, cpu_ns, pattern)", 6, &ins, c->io) != 0)
        rc = -2;
    for (size_t k = 0; rc == 0 && k < by_text.n; k++) {
        const struct pat_group *g = sweep_index_at(&by_text, k);
        size_t len = pat_group_text(&s, roots, ops, n_ops, g, &text, &text_cap);
        if (!len) {
            rc = -3;
            break;
        }
        int64_t rank = roots[g->root].rank;
        if (rank == SWEEP_RANK_NULL)
            sqlite3_bind_null(ins, 1);
        else
            sqlite3_bind_int64(ins, 1, rank);
        sqlite3_bind_int64(ins, 2, g->count);
        sqlite3_bind_int64(ins, 3, g->kernels);
        sqlite3_bind_int64(ins, 4, g->gpu);
        sqlite3_bind_int64(ins, 5, g->cpu);
        sqlite3_bind_text(ins, 6, text + sizeof rank, (int)(len - sizeof rank), SQLITE_TRANSIENT);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            fprintf(c->io->err, "%s: %s\n", c->io->prog, sqlite3_errmsg(c->db));
            rc = -2;
        }
        sqlite3_reset(ins);
    }
    if (rc == -3) {
        fprintf(c->io->err, "%s: out of memory\n", c->io->prog);
        rc = -2;
    }
    sqlite3_finalize(ins);
    free(key_buf), free(text);
    sweep_index_free(&by_ids), sweep_index_free(&by_text);
    pat_strings_free(&s);
    return rc;
}
