/* ops_pack.c: `tracedb ops`'s events from the import's pack (pack_source.h) in place of SQLite's rows:
 * each part decodes every block and takes the rows of its own ids, each self time less what later
 * children took from it (event_pack_less), but the rows the import's end rewrote after packing them (the
 * stale ones), read from SQLite (ops_read_range) as the pack's rows reach them. */
#include "ops_sweep_internal.h"
#include "event_pack.h"
#include "ingest.h"
#include "kinds.h"
#include "pack_source.h"
#include <stdlib.h>

int ops_pack_open(struct ops_pass *p, struct pack_source *src)
{
    const struct ops_sweep_options *o = p->o;
    if (!o->as_stored || o->by_shape || o->with_flops || p->stacks || !p->blocks || !pack_source_open(p->db, src) ||
        src->format != TDB_PACK_V2 || src->lo != p->lo || (uint64_t)src->hi - (uint64_t)src->lo + 1 != (uint64_t)p->span ||
        pack_source_stale(p->db, src, &p->stale, &p->nstale) != 0)
        return 0;
    if (pack_source_less(p->db, src, &p->less, &p->nless) != 0) {
        free(p->stale), p->stale = NULL, p->nstale = 0;
        return 0;
    }
    p->pack = src;
    return 1;
}

/* Whether id is in a stale range; *hint: the range looked at last (the rows come nearly in id order). */
static int is_stale(const struct ops_pass *p, int64_t id, size_t *hint)
{
    size_t n = p->nstale, lo = 0, hi = n;
    if (!n)
        return 0;
    if (*hint < n && id <= p->stale[*hint][1] && (*hint == 0 || id > p->stale[*hint - 1][1]))
        return id >= p->stale[*hint][0]; /* in it, or between it and the one before */
    while (lo < hi) { /* the first range ending at id or after it */
        size_t mid = lo + (hi - lo) / 2;
        if (p->stale[mid][1] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    *hint = lo;
    return lo < n && id >= p->stale[lo][0];
}

/* Id's self time less since its row was packed (0: none); *hint: the fix looked at last. */
static int64_t less_of(const struct ops_pass *p, int64_t id, size_t *hint)
{
    size_t n = p->nless, lo = 0, hi = n;
    if (*hint < n && p->less[*hint][0] == id)
        return p->less[*hint][1];
    if (*hint + 1 < n && p->less[*hint + 1][0] == id)
        return p->less[++*hint][1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->less[mid][0] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && p->less[lo][0] == id) {
        *hint = lo;
        return p->less[lo][1];
    }
    return 0;
}

int ops_pack_take(struct ops_part *part, sqlite3_stmt *rows)
{
    const struct ops_pass *p = part->p;
    const struct pack_source *src = p->pack;
    /* each id of the part's once (the pack holds one row for each id from lo to hi): else it is no pack */
    uint64_t span = (uint64_t)part->hi - (uint64_t)part->lo + 1, found = 0;
    unsigned char *seen = calloc(span / 8 + 1, 1);
    sqlite3_stmt *st = pack_source_blocks(part->db, src->first, src->last);
    size_t next = 0; /* the part's next stale range to read */
    struct tdb_pack_row *block = malloc(TDB_PACK_ROWS * sizeof *block);
    struct buf key = {0};
    int rc = !st ? -3 : !block || !seen ? -2 : 0, step = SQLITE_DONE; /* (blocks that cannot be read: no pack) */
    size_t hint = 0, less_hint = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int got = pack_source_block(st, src, block);
        if (got < 0)
            rc = -3;
        for (int i = 0; i < got && rc == 0; i++) {
            const struct tdb_pack_row *x = &block[i];
            if (x->id < part->lo || x->id > part->hi)
                continue;
            uint64_t at = (uint64_t)x->id - (uint64_t)part->lo;
            if (seen[at / 8] & (1u << (at % 8))) {
                rc = -3;
                break;
            }
            seen[at / 8] |= (unsigned char)(1u << (at % 8)), found++;
            for (; rc == 0 && next < part->nranges && part->ranges[next][0] <= x->id; next++)
                rc = ops_read_range(part, rows, part->ranges[next][0], part->ranges[next][1], &key);
            if (rc != 0 || is_stale(p, x->id, &hint))
                continue;
            int64_t self; /* as the table holds it: less what later children took (SQLite's would be no integer past int64) */
            if (__builtin_sub_overflow(x->self_ns, p->nless ? less_of(p, x->id, &less_hint) : 0, &self)) {
                rc = -3;
                break;
            }
            struct ops_row r = {.id = x->id, .kind = x->kind, .name_id = x->name_id, .dur = x->dur_ns, .self = self,
                                .key = p->o->by_rank ? x->thread_id : x->launch_ns != TDB_NULL ? x->launch_ns : x->start_ns,
                                .start = x->start_ns, .thread = x->thread_id,
                                .parent = x->parent_id == TDB_NULL ? NO_PARENT : x->parent_id,
                                .launch = x->launch_id, .has_launch = x->launch_id != TDB_NULL, .flops_type = SQLITE_NULL};
            rc = ops_take_row(part, &r, &key);
        }
    }
    int code = step & 0xff; /* a file damaged or unreadable is an error; a pack a stranger changed is no pack */
    if (rc == 0 && (code == SQLITE_CORRUPT || code == SQLITE_NOTADB || code == SQLITE_IOERR || code == SQLITE_NOMEM)) {
        part->errmsg = sqlite3_mprintf("%s", sqlite3_errmsg(part->db));
        rc = -1;
    } else if (rc == 0 && (step != SQLITE_DONE || found != span))
        rc = -3;
    for (; rc == 0 && next < part->nranges; next++) /* (none: each begins at an id of the part's) */
        rc = ops_read_range(part, rows, part->ranges[next][0], part->ranges[next][1], &key);
    buf_free(&key);
    free(block), free(seen);
    sqlite3_finalize(st);
    return rc;
}
