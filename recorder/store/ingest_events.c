/* ingest_events.c: taking events in: each event's row on its way to the writer through the reorder
 * buffer (stream_nest.c), counters and flows; what the end of its trace needs kept per event in
 * external sorts (its sweep key, its correlation), its per-name sums, its GPU time; the keys read back
 * from rows when the sweep must run. */
#include "ingest_internal.h"
#include "device_time.h"
#include "nesting.h"
#include "row_writer.h"
#include "stmt_cache.h"
#include "strmap.h"
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int corr_rec_cmp(const void *a, const void *b)
{
    const struct corr_rec *x = a, *y = b;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    if (x->what != y->what)
        return x->what < y->what ? -1 : 1;
    return (x->ord > y->ord) - (x->ord < y->ord);
}

int result_rec_cmp(const void *a, const void *b)
{
    const struct result_rec *x = a, *y = b;
    if (x->ord != y->ord)
        return x->ord < y->ord ? -1 : 1;
    return (x->what > y->what) - (x->what < y->what);
}

/* Frees the per-trace keys (after the trace's end, or on abort). */
void ingest_free_keys(struct tdb_ingest *ing)
{
    spill_sort_free(ing->keys), spill_sort_free(ing->corrs), spill_sort_free(ing->results);
    ing->keys = ing->corrs = ing->results = NULL;
    spill_map_free(&ing->stat_index);
    paged_free(&ing->name_stats);
    paged_free(&ing->stats);
    ing->nstats = 0;
    memset(ing->stat_seen, 0, sizeof ing->stat_seen);
    paged_file_free(&ing->sums_file);
    free(ing->recent);
    ing->recent = NULL;
}

/* The per-trace sorts, made at the trace's first event: the keys (32 bytes an event; a recording's 48,
 * with what each row holds) hold up to sort_budget bytes in memory, the results (24 bytes a record) and
 * the correlations half that each. The per-name sums hold half of it in memory (32,768 at 8 MiB; real
 * traces have a few thousand), the names' first sums an eighth (262,144 names); pages of 64 KiB beyond
 * (as small as a record where tests give 1 KiB). */
static int ingest_sorts_new(struct tdb_ingest *ing)
{
    size_t b = ing->sort_budget, slot = b / 32 < 65536 ? b / 32 : 65536;
    if (paged_file_init(&ing->sums_file, ing->sort_dir, slot > sizeof(struct stat_row) ? slot : sizeof(struct stat_row)) != 0) {
        fprintf(ing->err, "tracedb: out of memory\n");
        return -1;
    }
    paged_init(&ing->stats, &ing->sums_file, sizeof(struct stat_row), b / 2);
    paged_init(&ing->name_stats, &ing->sums_file, sizeof(uint32_t), b / 8);
    spill_map_init(&ing->stat_index, NAMES_IN_MEMORY(b), b / 8, b / 16);
    ing->held_keys = ing->live && !ing->reading_back;
    ing->keys = spill_sort_new(ing->held_keys ? sizeof(struct nesting_held_key) : sizeof(struct nesting_key),
                               ing->sort_budget, nesting_key_cmp, ing->sort_dir);
    ing->corrs = spill_sort_new(sizeof(struct corr_rec), ing->sort_budget / 2, corr_rec_cmp, ing->sort_dir);
    ing->results = spill_sort_new(sizeof(struct result_rec), ing->sort_budget / 2, result_rec_cmp, ing->sort_dir);
    ing->rewrites = 0, ing->stream_abs = 0, ing->keys_in_rows = 0;
    ing->recent = calloc(RECENT_LAUNCHES, sizeof *ing->recent);
    if (!ing->keys || !ing->corrs || !ing->results || !ing->recent) {
        fprintf(ing->err, "tracedb: out of memory\n");
        return -1;
    }
    return 0;
}

/* A correlation's slot: its low 16 bits, moved by a hash of the rest. Correlations count up (CUPTI's), so
 * launches and their work, close in the trace, find slots next to each other (a hash of the whole id
 * spread them over the table: a cache miss each); ids 65536 apart (or 2^32, 2^48) land far apart. */
static size_t recent_slot(int64_t corr)
{
    uint64_t x = (uint64_t)corr, high = (x >> 16) * 0x9E3779B97F4A7C15ULL;
    return (size_t)((x + (high >> 48)) & (RECENT_LAUNCHES - 1));
}

/* The aggregate of (kind, name_id, device): its index, -1 when there is none yet, -2 on error (the
 * pages or the map failed). */
static int64_t stat_find(struct tdb_ingest *ing, int64_t kind, int64_t name_id, int64_t device)
{
    if (name_id < 0 || name_id >= NAME_STATS_IDS) {
        int64_t key[3] = {kind, name_id, device};
        return spill_map_get(&ing->stat_index, key, sizeof key);
    }
    const uint32_t *first = paged_at(&ing->name_stats, (size_t)name_id);
    if (!first)
        return -2;
    for (uint32_t k = *first; k;) {
        const struct stat_row *r = stat_at(ing, k - 1);
        if (r->kind == kind && r->device == device)
            return k - 1;
        k = r->next_same_name;
    }
    return -1;
}

/* Aggregate i, just made (r), is found by stat_find from now on. 0, or -1 on error. */
static int stat_link(struct tdb_ingest *ing, struct stat_row *r, size_t i)
{
    if (r->name_id < 0 || r->name_id >= NAME_STATS_IDS) {
        int64_t key[3] = {r->kind, r->name_id, r->device};
        return spill_map_put(&ing->stat_index, key, sizeof key, (int64_t)i);
    }
    uint32_t *first = paged_at(&ing->name_stats, (size_t)r->name_id); /* (r stays: another array) */
    if (!first)
        return -1;
    r->next_same_name = *first, *first = (uint32_t)i + 1;
    return 0;
}

/* Why an aggregate could not be found or made. */
static void stat_failed(struct tdb_ingest *ing)
{
    const char *why = spill_map_error(&ing->stat_index);
    int e = paged_file_error(&ing->sums_file);
    if (why || e)
        fprintf(ing->err, "tracedb: %s: cannot keep the per-name sums: %s\n", ing->path, why ? why : strerror(e));
    else
        fprintf(ing->err, "tracedb: out of memory\n");
}

/* Adds event ev (named name_id) to its (kind, name, device) aggregate; returns the aggregate's index. */
static int64_t ingest_stat(struct tdb_ingest *ing, const struct tdb_event *ev, int64_t name_id)
{
    uint64_t h = ((uint64_t)name_id * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)ev->kind << 7) ^ (uint64_t)ev->device;
    struct stat_seen *seen = &ing->stat_seen[(h ^ (h >> 32)) % (sizeof ing->stat_seen / sizeof ing->stat_seen[0])];
    int64_t i;
    if (seen->index && seen->name_id == name_id && seen->kind == ev->kind && seen->device == ev->device)
        i = (int64_t)seen->index - 1;
    else if ((i = stat_find(ing, ev->kind, name_id, ev->device)) >= 0)
        *seen = (struct stat_seen){ev->kind, name_id, ev->device, (size_t)i + 1};
    if (i < -1 || (i == -1 && ing->nstats >= UINT32_MAX - 1)) /* (aggregates are 32-bit in the sweep's keys) */
        return -1;
    struct stat_row *r;
    if (i == -1) {
        i = (int64_t)ing->nstats++;
        r = stat_at(ing, (size_t)i);
        *r = (struct stat_row){.kind = ev->kind, .name_id = name_id, .device = ev->device, .min = INT64_MAX,
                               .max = INT64_MIN, .device_class = -1};
        if (stat_link(ing, r, (size_t)i) != 0)
            return -1;
    } else
        r = stat_at(ing, (size_t)i);
    ing->last_stat = (size_t)i;
    r->calls++;
    r->total = tdb_sat_add(r->total, ev->dur_ns);
    if (ev->dur_ns < r->min)
        r->min = ev->dur_ns;
    if (ev->dur_ns > r->max)
        r->max = ev->dur_ns;
    if (ev->kind != TDB_KIND_TRACE) {
        if (ev->start_ns < ing->first_ns)
            ing->first_ns = ev->start_ns;
        if (ev->start_ns + ev->dur_ns > ing->last_ns)
            ing->last_ns = ev->start_ns + ev->dur_ns;
    }
    return i;
}

/* GPU work with a correlation: what can be linked to a launch. */
static int links_to_launch(const struct tdb_event *ev)
{
    return ev->correlation != TDB_NULL && (ev->kind == TDB_KIND_KERNEL || ev->kind == TDB_KIND_MEMCPY ||
                                           ev->kind == TDB_KIND_MEMSET || ev->kind == TDB_KIND_SYNC);
}

/* The correlation record of launch or GPU work ev (row ord); in_row: the ord of the launch its row holds,
 * or < 0. 0, or -1 (printed). */
static int keep_corr(struct tdb_ingest *ing, const struct tdb_event *ev, size_t ord, int64_t in_row)
{
    struct corr_rec *c = spill_sort_push(ing->corrs);
    if (!c)
        return ingest_sort_failed(ing, ing->corrs);
    int launch = ev->kind == TDB_KIND_RUNTIME || ev->kind == TDB_KIND_DRIVER;
    *c = (struct corr_rec){ev->correlation, launch ? ev->start_ns : 0, (uint32_t)ord,
                           launch ? CORR_LAUNCH : ev->kind == TDB_KIND_SYNC ? CORR_LINK : CORR_WORK,
                           in_row >= 0 ? (uint32_t)in_row + 1 : 0, 0};
    return 0;
}

/* Row id as a held parent (nesting.h): its ord + 1; 0 for none; NESTING_UNKNOWN when outside the trace. */
static uint32_t held_ord(const struct tdb_ingest *ing, int64_t id)
{
    if (id == TDB_NULL)
        return 0;
    uint64_t ord = (uint64_t)id - (uint64_t)ing->trace_first_event;
    return id >= ing->trace_first_event && ord < 0xfffffffeu ? (uint32_t)ord + 1 : NESTING_UNKNOWN;
}

/* Keeps what the end of the trace needs about event ord: its correlation and,
 * for rows read back, its sweep key (an import's are read from its rows when the sweep must run).
 * Returns the ord of the launch of GPU work when that launch was seen just before (the row is written
 * with it, and with its start, *launch_ns), -2 otherwise, -1 on error. */
int64_t ingest_keep_keys(struct tdb_ingest *ing, size_t ord, const struct tdb_event *ev, int64_t name_id,
                         int64_t *launch_ns)
{
    if (ord >= 0xfffffffe) { /* ords + 1 fit in 32 bits */
        fprintf(ing->err, "tracedb: more than 4 billion events in one trace\n");
        return -1;
    }
    if (!ing->keys && ingest_sorts_new(ing) != 0)
        return -1;
    int64_t stat = ingest_stat(ing, ev, name_id);
    if (stat < 0) {
        stat_failed(ing);
        return -1;
    }
    int written = ing->reading_back || ing->live; /* rows written already: linked by the end, never as they come */
    int recorded = written && !ing->reading_back; /* written just now, with ev's nesting and launch */
    if (written) { /* rows read back or recorded: their keys now; an import's wait in its rows (keys_in_rows) */
        struct nesting_key *k = spill_sort_push(ing->keys);
        if (!k)
            return ingest_sort_failed(ing, ing->keys);
        *k = (struct nesting_key){ev->start_ns, ev->dur_ns, (uint32_t)ev->thread_id, (uint32_t)ord, (uint32_t)stat, 0};
        if (ing->held_keys) /* what the row holds: coalesce(self_ns, dur_ns) as row_writer.c writes it */
            ((struct nesting_held_key *)k)->held =
                recorded ? (struct nesting_held){ev->self_ns != TDB_NULL ? ev->self_ns : ev->dur_ns,
                                                 held_ord(ing, ev->parent_id),
                                                 ev->depth >= 0 ? (uint32_t)ev->depth : NESTING_UNKNOWN}
                         : (struct nesting_held){0, NESTING_UNKNOWN, 0};
    } else {
        ing->keys_in_rows = 1;
    }
    if (ev->correlation == TDB_NULL)
        return -2;
    int launch = ev->kind == TDB_KIND_RUNTIME || ev->kind == TDB_KIND_DRIVER, gpu = links_to_launch(ev);
    if (!launch && !gpu)
        return -2;
    size_t slot = recent_slot(ev->correlation);
    int64_t known = -2;
    struct recent_launch *r = &ing->recent[slot];
    if (launch && (!r->used || r->corr != ev->correlation)) /* the first launch seen stays */
        *r = (struct recent_launch){ev->correlation, ev->start_ns, (uint32_t)ord, 1};
    else if (gpu && !written && r->used && r->corr == ev->correlation)
        known = r->ord, *launch_ns = r->start;
    if (gpu && !written)
        return known; /* its record goes when its row leaves the reorder buffer (ingest_emit_row), which
                       * may have linked it to a launch that came after it */
    /* a recorded row holds the launch its recorder found: the end rewrites it only if it finds another */
    int64_t in_row = known;
    if (recorded && ing->held_keys && ev->launch_id != TDB_NULL) {
        uint32_t h = held_ord(ing, ev->launch_id);
        in_row = h && h != NESTING_UNKNOWN ? (int64_t)h - 1 : -2;
    }
    return keep_corr(ing, ev, ord, in_row) != 0 ? -1 : known;
}

/* The event of the current row of st, a scan of event rows whose columns are: id, kind, name_id, name
 * (or NULL), thread_id, start_ns, dur_ns, correlation, device, bytes. */
void ingest_event_of_row(sqlite3_stmt *st, struct tdb_event *ev)
{
    tdb_event_init(ev);
    ev->kind = sqlite3_column_int(st, 1);
    ev->name = (struct tdb_str){(const char *)sqlite3_column_text(st, 3), (size_t)sqlite3_column_bytes(st, 3)};
    ev->thread_id = sqlite3_column_int64(st, 4);
    ev->start_ns = sqlite3_column_int64(st, 5);
    ev->dur_ns = sqlite3_column_int64(st, 6);
    if (sqlite3_column_type(st, 7) != SQLITE_NULL)
        ev->correlation = sqlite3_column_int64(st, 7);
    if (sqlite3_column_type(st, 8) != SQLITE_NULL)
        ev->device = sqlite3_column_int64(st, 8);
    if (sqlite3_column_type(st, 9) != SQLITE_NULL)
        ev->bytes = sqlite3_column_int64(st, 9);
}

/* The sweep's keys of the current trace's events, read from their rows, as ingest_keep_keys would have
 * kept them as they came (the row holds what the key is made of: the times, the track, the aggregate's
 * kind, name and device). Imports keep none as events come: nearly every trace
 * nests as it streams in (stream_nest.c), and pushing and spilling a key an event cost its parser 3.5%;
 * a trace with a track the stream could not nest pays this one scan instead. 0, or -1 (printed). */
int ingest_keys_from_rows(struct tdb_ingest *ing)
{
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db, "SELECT id, kind, name_id, NULL, thread_id, start_ns, dur_ns, correlation, device, bytes "
                                  "FROM event WHERE id >= ?1 AND id < ?2", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    sqlite3_bind_int64(st, 1, ing->trace_first_event);
    sqlite3_bind_int64(st, 2, ing->trace_end_event);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        struct tdb_event ev;
        ingest_event_of_row(st, &ev);
        int64_t id = sqlite3_column_int64(st, 0);
        int64_t stat = stat_find(ing, ev.kind, sqlite3_column_int64(st, 2), ev.device);
        if (stat < 0) { /* cannot be: every row was counted as its event came */
            if (stat < -1)
                stat_failed(ing);
            else
                fprintf(ing->err, "tracedb: %s: internal error: event %lld has no aggregate\n", ing->path, (long long)id);
            rc = -1;
            break;
        }
        struct nesting_key *k = spill_sort_push(ing->keys);
        if (!k) {
            rc = ingest_sort_failed(ing, ing->keys);
            break;
        }
        *k = (struct nesting_key){ev.start_ns, ev.dur_ns, (uint32_t)ev.thread_id, (uint32_t)(id - ing->trace_first_event),
                                  (uint32_t)stat, 0};
        if (ing->held_keys) /* (an import's keys hold nothing: this is for safety's sake) */
            ((struct nesting_held_key *)k)->held = (struct nesting_held){0, NESTING_UNKNOWN, 0};
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = ingest_fail(ing, "cannot read the rows back");
    tdb_stmt_finalize(st);
    return rc;
}

/* Keeps the interval of GPU work for device_stats (device_time.c). 0, or -1 (printed). */
int ingest_keep_gpu_time(struct tdb_ingest *ing, size_t ord, const struct tdb_event *ev)
{
    if ((ev->kind != TDB_KIND_KERNEL && ev->kind != TDB_KIND_MEMCPY && ev->kind != TDB_KIND_MEMSET &&
         ev->kind != TDB_KIND_EXECUTION) ||
        ev->device == TDB_NULL || ev->dur_ns <= 0)
        return 0;
    struct stat_row *r = stat_at(ing, ing->last_stat); /* this event's, just counted: the class is asked once a name */
    if (r->device_class < 0)
        r->device_class = (int)device_time_class(ev->kind, ev->name);
    if (device_time_add(&ing->devices, (uint32_t)ord, ev->start_ns, ev->dur_ns, ev->device,
                        (enum device_class)r->device_class, ing->sort_budget / 4, ing->sort_dir) == 0)
        return 0;
    const char *why = device_time_error(&ing->devices);
    fprintf(ing->err, "tracedb: %s: %s\n", ing->path, why ? why : "out of memory");
    return -1;
}

/* ---------------------------------------------------------------- events */

void tdb_event_init(struct tdb_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->correlation = ev->external_id = ev->device = ev->stream = ev->bytes = TDB_NULL;
    ev->registers = ev->shared_mem = ev->addr = ev->total_allocated = ev->total_reserved = ev->device_type = TDB_NULL;
    for (int i = 0; i < 3; i++)
        ev->grid[i] = ev->block[i] = TDB_NULL;
    ev->blocks_per_sm = ev->warps_per_sm = ev->occupancy_pct = NAN;
    ev->launch_id = ev->launch_ns = ev->parent_id = ev->self_ns = ev->id = ev->flow = TDB_NULL;
}

int64_t tdb_ingest_reserve_id(struct tdb_ingest *ing)
{
    /* an import's rows are numbered in the order they come (the sweep's keys are kept by that order):
     * it reserves nothing, and the sweep gives such rows their parents */
    return ing->live ? ing->next_event++ : TDB_NULL;
}

int tdb_ingest_reserves_ids(const struct tdb_ingest *ing)
{
    return ing->live;
}

/* A row leaves the reorder buffer (stream_nest.c), final: to the writer. GPU work's correlation record
 * goes now, with the launch its row holds: the end of the trace links only the rest. */
static int ingest_emit_row(void *ctx, int64_t id, int64_t name_id, int64_t cat_id, const struct tdb_event *ev)
{
    struct tdb_ingest *ing = ctx;
    if (links_to_launch(ev) &&
        keep_corr(ing, ev, (size_t)(id - ing->trace_first_event),
                  ev->launch_id != TDB_NULL ? ev->launch_id - ing->trace_first_event : -2) != 0)
        return -1;
    return row_writer_event(ing->rows, id, name_id, cat_id, ev);
}

/* A row gone to the writer had children in a later run of its track (stream_nest.c): its self time
 * is less by their time. */
static int ingest_fix_self(void *ctx, int64_t id, int64_t less)
{
    struct tdb_ingest *ing = ctx;
    return row_writer_self_fix(ing->rows, id, less);
}

/* A row's self time as it streamed in, for its aggregate's sum (used where the sweep does not run):
 * exact while the sizes of all terms sum within 64 bits (then no order of adding them saturates). */
static void ingest_self_sum(void *ctx, uint32_t stat, int64_t delta)
{
    struct tdb_ingest *ing = ctx;
    uint64_t size = delta < 0 ? (uint64_t)0 - (uint64_t)delta : (uint64_t)delta;
    ing->stream_abs = ing->stream_abs + size < ing->stream_abs ? UINT64_MAX : ing->stream_abs + size;
    if (ing->stream_abs <= INT64_MAX)
        stat_at(ing, stat)->stream_self += delta;
}

/* Whether aggregates a and b count events of one name (an event inside one of its own name, whatever
 * their kinds: PyTorch's same-name merge compares names alone). */
int ingest_same_name(void *ctx, uint32_t a, uint32_t b)
{
    struct tdb_ingest *ing = ctx;
    if (a == b)
        return 1;
    int64_t name = stat_at(ing, a)->name_id;
    return name == stat_at(ing, b)->name_id;
}

int64_t tdb_ingest_event(struct tdb_ingest *ing, const struct tdb_event *in)
{
    struct tdb_event clamped;
    const struct tdb_event *ev = in;
    int64_t start = in->start_ns, dur = in->dur_ns;
    if (tdb_time_clamp(&start, &dur)) {
        clamped = *in;
        clamped.start_ns = start, clamped.dur_ns = dur;
        ev = &clamped;
    }
    int64_t name = ingest_string(ing, ev->name);
    int64_t cat = ev->cat.p ? ingest_string(ing, ev->cat) : TDB_NULL;
    if (name < 0 || cat == -1)
        return -1;
    if (ing->live) {
        /* a recording writes each row as it comes and keeps what the end of the trace needs (its key,
         * correlation, sums: external sorts, so memory stays flat) as a row read back would give it;
         * the end nests and links them all, so closing reads no row back */
        int64_t id = ev->id != TDB_NULL ? ev->id : ing->next_event++;
        if (row_writer_event(ing->rows, id, name, cat, ev) != 0)
            return -1;
        int64_t launch_ns;
        if (ingest_keep_keys(ing, (size_t)(id - ing->trace_first_event), ev, name, &launch_ns) == -1 ||
            ingest_keep_gpu_time(ing, (size_t)(id - ing->trace_first_event), ev) != 0)
            return -1;
        ing->carrier = 0; /* its row is written: its flows get rows of their own */
        ing->events++;
        return id;
    }
    int64_t id = ing->next_event++;
    int64_t launch_ns = TDB_NULL;
    int64_t launch = ingest_keep_keys(ing, (size_t)(id - ing->trace_first_event), ev, name, &launch_ns);
    if (launch == -1)
        return -1;
    if (ingest_keep_gpu_time(ing, (size_t)(id - ing->trace_first_event), ev) != 0)
        return -1;
    const struct stream_nest_calls calls = {ingest_emit_row, ingest_fix_self, ingest_self_sum, ingest_same_name, ing};
    if (!ing->stream && !(ing->stream = stream_nest_new(ing->sort_budget / 2, &calls, ing->sort_dir))) {
        fprintf(ing->err, "tracedb: out of memory\n");
        return -1;
    }
    /* GPU work whose launch has not come yet waits for it a little in the reorder buffer (CUPTI hands a
     * kernel over a row or two before its launch); a launch links the work waiting for it */
    int64_t wait = links_to_launch(ev) && launch < 0 ? ev->correlation : TDB_NULL;
    if (stream_nest_add(ing->stream, id, name, cat, ev, launch >= 0 ? ing->trace_first_event + launch : TDB_NULL,
                        launch >= 0 ? launch_ns : TDB_NULL, (uint32_t)ing->last_stat, wait) != 0)
        return -1;
    if ((ev->kind == TDB_KIND_RUNTIME || ev->kind == TDB_KIND_DRIVER) && ev->correlation != TDB_NULL)
        stream_nest_link(ing->stream, ev->correlation, id, ev->start_ns);
    ing->carrier = ev->correlation != TDB_NULL;
    ing->carrier_id = id, ing->carrier_thread = ev->thread_id, ing->carrier_start = ev->start_ns;
    ing->carrier_corr = ev->correlation;
    ing->events++;
    return id;
}

int tdb_ingest_counter(struct tdb_ingest *ing, int64_t thread_id, struct tdb_str name, int64_t ts_ns, double value)
{
    int64_t nid = ingest_string(ing, name);
    if (nid < 0)
        return -1;
    return row_writer_counter(ing->rows, thread_id, nid, ts_ns, value);
}

int tdb_ingest_flow(struct tdb_ingest *ing, int64_t thread_id, int64_t flow_id, struct tdb_str cat, char phase,
                    int64_t ts_ns, int bind_enclosing)
{
    int64_t cid = cat.p ? ingest_string(ing, cat) : TDB_NULL;
    if (cid == -1)
        return -1;
    int carried = ing->carrier && flow_id != TDB_NULL && flow_id == ing->carrier_corr && thread_id == ing->carrier_thread &&
                  ts_ns == ing->carrier_start && cid != TDB_NULL && cid <= INT64_MAX / 8 &&
                  (phase == 's' || phase == 't' || phase == 'f') &&
                  stream_nest_carry(ing->stream, ing->carrier_id,
                                    cid * 8 + (bind_enclosing ? 4 : 0) + (phase == 's' ? 1 : phase == 't' ? 2 : 3));
    ing->carrier = 0;
    return carried ? 0 : row_writer_flow(ing->rows, thread_id, flow_id, cid, phase, ts_ns, bind_enclosing);
}
