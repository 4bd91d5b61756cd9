/* ops_keys.c: the keys and sums of `tracedb ops`'s groups (see ops_sweep_internal.h): sums that say when
 * they overflow, growing arrays, a value's key as GROUP BY tells values apart, a group's key, and the
 * ranks' or steps' keys read once. */
#include "ops_sweep_internal.h"
#include <stdlib.h>
#include <string.h>

void ops_add(int *overflow, int64_t *acc, int64_t v)
{
    if (__builtin_add_overflow(*acc, v, acc))
        *overflow = 1;
}

/* Appends one element of `size` bytes to a growing array; NULL when out of memory. */
void *ops_push(void **v, size_t *n, size_t *cap, size_t size)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 1024;
        void *m = realloc(*v, c * size);
        if (!m)
            return NULL;
        *v = m, *cap = c;
    }
    return (char *)*v + size * (*n)++;
}

/* Appends value v to a group key as GROUP BY tells values apart (a type byte, then its bytes). */
int ops_key_add(struct buf *k, const sqlite3_value *v)
{
    sqlite3_value *w = (sqlite3_value *)v; /* sqlite3_value_* take no const */
    int t = v ? sqlite3_value_type(w) : SQLITE_NULL;
    unsigned char tb = (unsigned char)t;
    if (buf_add(k, &tb, 1) != 0)
        return -1;
    if (t == SQLITE_INTEGER) {
        int64_t x = sqlite3_value_int64(w);
        return buf_add(k, &x, sizeof x);
    }
    if (t == SQLITE_FLOAT) {
        double x = sqlite3_value_double(w);
        return buf_add(k, &x, sizeof x);
    }
    if (t == SQLITE_NULL)
        return 0;
    int n = sqlite3_value_bytes(w);
    const void *b = sqlite3_value_blob(w);
    return buf_add(k, &n, sizeof n) != 0 || (n && buf_add(k, b, (size_t)n) != 0) ? -1 : 0;
}

/* scope_rank (by_rank) or scope_steps (by_step), read once; equal ranks get one key, as GROUP BY
 * would put them together (the readers then key groups by integers and never touch a value). */
int ops_load_keys(struct ops_pass *p, const struct ops_sweep_options *o)
{
    if (o->by_step)
        return step_index_load(&p->steps, p->db);
    if (!o->by_rank)
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(p->db, "SELECT thread_id, rank FROM temp.scope_rank", -1, &st, NULL) != SQLITE_OK)
        return -1;
    struct strmap same; /* a rank's value as a key -> its first index */
    strmap_init(&same);
    struct buf key = {0};
    int rc = 0, step;
    size_t cap_ranks = 0, cap_keys = 0, nkeys = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_value *v = sqlite3_value_dup(sqlite3_column_value(st, 1));
        int64_t thread = sqlite3_column_int64(st, 0);
        sqlite3_value **r = v ? ops_push((void **)&p->ranks, &p->nranks, &cap_ranks, sizeof *r) : NULL;
        if (!r) {
            sqlite3_value_free(v);
            rc = -1;
            break;
        }
        *r = v;
        int64_t *k = ops_push((void **)&p->rank_key, &nkeys, &cap_keys, sizeof *k);
        key.n = 0;
        if (!k || ops_key_add(&key, v) != 0) {
            rc = -1;
            break;
        }
        *k = strmap_get(&same, key.p, key.n);
        if (*k < 0 && sqlite3_value_type(v) != SQLITE_NULL) {
            *k = (int64_t)p->nranks - 1;
            rc = strmap_put(&same, key.p, key.n, *k);
        }
        if (rc == 0 && strmap_put(&p->rank_ix, &thread, sizeof thread, (int64_t)p->nranks - 1) != 0)
            rc = -1;
    }
    sqlite3_finalize(st);
    strmap_free(&same);
    buf_free(&key);
    return rc == 0 && step == SQLITE_DONE ? 0 : -1;
}

void ops_sums_add(int *overflow, struct sums *to, const struct sums *s)
{
    ops_add(overflow, &to->calls, s->calls);
    ops_add(overflow, &to->self_cpu, s->self_cpu);
    ops_add(overflow, &to->cpu_total, s->cpu_total);
    ops_add(overflow, &to->self_dev, s->self_dev);
    ops_add(overflow, &to->dev_total, s->dev_total);
    ops_add(overflow, &to->cpu_mem, s->cpu_mem);
    ops_add(overflow, &to->self_cpu_mem, s->self_cpu_mem);
    ops_add(overflow, &to->dev_mem, s->dev_mem);
    ops_add(overflow, &to->self_dev_mem, s->self_dev_mem);
    if (s->flops_seen) {
        to->flops_d += s->flops_d;
        if (s->flops_real || __builtin_add_overflow(to->flops_i, s->flops_i, &to->flops_i))
            to->flops_real = 1;
        to->flops_seen = 1;
    }
}

/* A group's key: its rank's or step's key, its name id, its stack's, whether it is a device row and its
 * shapes (when grouped by them). */
int ops_group_key(struct buf *key, int64_t rank_key, int64_t name_id, int32_t stack, int32_t device, const char *shapes)
{
    key->n = 0;
    return buf_add(key, &rank_key, sizeof rank_key) != 0 || buf_add(key, &name_id, sizeof name_id) != 0 ||
                   buf_add(key, &stack, sizeof stack) != 0 || buf_add(key, &device, sizeof device) != 0 ||
                   (shapes && buf_add(key, shapes, strlen(shapes) + 1) != 0)
               ? -1 : 0;
}
