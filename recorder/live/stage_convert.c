/* stage_convert.c: a recording's staging file (stage_format.h) into its database, in one streaming pass.
 *
 * Each thread's records come in the order the thread made them, so a range's begin and end meet on the
 * thread's own stack: a range gets its id when it begins (what happens inside it names it as parent),
 * and is written once, when it ends, with its parent, depth and self time. Start/stop ranges (any
 * thread may end them) are paired by id across threads. CUPTI's events are complete already. The
 * same code runs in the recording process (its converter thread, and at close) and in `tracedb finish`
 * after a crash, so a finished recording holds what a closed one would. The importer's end-of-trace
 * step (ingest_trace.c) then links GPU work to launches and writes the sums, as for every source. */
#define _GNU_SOURCE
#include "stage_convert.h"
#include "call_nest.h"
#include "jsonbuf.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An open range on a thread. */
struct conv_frame {
    int64_t start;
    int kind;
    struct buf name, cat, args;
    int64_t id;       /* reserved when it began: what begins inside it names it as parent */
    int64_t child_ns; /* the durations of its direct children so far */
    int64_t domain;   /* NVTX domain handle (0: the default domain): a pop ends its own domain's range */
};

/* A range ended on its thread's own stack, kept for CUPTI's calls inside it, which come later. */
struct conv_closed {
    int64_t start, end, id;
    int depth;
};

#define CLOSED_KEEP 1024 /* ranges kept a thread (the latest), in the order they ended: by end */
#define CLOSED_LOOK 32   /* looked at a call at most, from the first that ends at or after it */

struct conv_thread {
    int64_t os_tid, track; /* track: -1 until it is made */
    int64_t last_ts;       /* its latest timestamp: where its open ranges end after a crash */
    struct buf name;
    struct conv_frame *stack;
    size_t depth, cap;
    struct conv_closed *closed; /* a ring of CLOSED_KEEP, made with the first; NULL before */
    uint64_t nclosed;           /* ranges ended so far */
};

/* A range started on one thread and ended anywhere (nvtxRangeStart/End). */
struct conv_open {
    int64_t id, start, track;
    struct buf name, cat;
};

struct stage_conv {
    struct tdb_ingest *ing;
    int64_t pid;
    struct buf process;           /* the process's name, given to its first track */
    int named_process;
    struct conv_thread *threads;  /* by number - 1 */
    size_t nthreads;
    struct conv_open *open;
    size_t nopen, open_cap;
    struct conv_stop { int64_t id, ts; } *stops; /* ends seen before their start (another thread's chunk) */
    size_t nstops, stops_cap;
    struct buf scratch, chunk;
    struct call_nest *nest;       /* CUPTI's chunks nested as they come (NULL until the first) */
    struct call_row *calls;       /* a chunk's events */
    size_t calls_cap;
    size_t last_thread;           /* the thread conv_enclosing found last, + 1 */
    int64_t events, never_ended, dropped;
    int closed;
    int clocks;                     /* STAGE_CLOCK pairs met: records are counter ticks */
    struct stage_clock prev, last;  /* the two latest */
};

static struct tdb_str conv_str(const char *p, size_t n)
{
    struct tdb_str s = {p ? p : "", p ? n : 0};
    return s;
}

struct stage_conv *stage_conv_new(struct tdb_ingest *ing, int64_t pid)
{
    struct stage_conv *c = calloc(1, sizeof *c);
    if (c)
        c->ing = ing, c->pid = pid;
    return c;
}

void stage_conv_free(struct stage_conv *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nthreads; i++) {
        struct conv_thread *t = &c->threads[i];
        for (size_t k = 0; k < t->cap; k++)
            buf_free(&t->stack[k].name), buf_free(&t->stack[k].cat), buf_free(&t->stack[k].args);
        free(t->stack);
        free(t->closed);
        buf_free(&t->name);
    }
    free(c->threads);
    call_nest_free(c->nest);
    free(c->calls);
    for (size_t i = 0; i < c->open_cap; i++)
        buf_free(&c->open[i].name), buf_free(&c->open[i].cat);
    free(c->open);
    free(c->stops);
    buf_free(&c->process), buf_free(&c->scratch), buf_free(&c->chunk);
    free(c);
}

/* Thread number n (1, 2, ...), made on first sight. */
static struct conv_thread *conv_thread(struct stage_conv *c, int64_t n)
{
    if (n < 1 || n > (int64_t)1 << 16) /* a thread number no recording reaches: damage */
        return NULL;
    if ((size_t)n > c->nthreads) {
        struct conv_thread *t = realloc(c->threads, (size_t)n * sizeof *t);
        if (!t)
            return NULL;
        memset(t + c->nthreads, 0, ((size_t)n - c->nthreads) * sizeof *t);
        for (size_t i = c->nthreads; i < (size_t)n; i++)
            t[i].track = -1;
        c->threads = t, c->nthreads = (size_t)n;
    }
    return &c->threads[n - 1];
}

/* Thread t's track, named as the thread was (and, with the first track, the process). */
static int64_t conv_track(struct stage_conv *c, struct conv_thread *t)
{
    if (t->track >= 0)
        return t->track;
    t->track = tdb_ingest_thread_ids(c->ing, c->pid, t->os_tid);
    if (t->track < 0)
        return -1;
    if (t->name.n && tdb_ingest_thread_meta(c->ing, t->track, "thread_name", conv_str(t->name.p, t->name.n), 0) != 0)
        return -1;
    if (!c->named_process && c->process.n &&
        tdb_ingest_thread_meta(c->ing, t->track, "process_name", conv_str(c->process.p, c->process.n), 0) != 0)
        return -1;
    c->named_process = 1;
    return t->track;
}

/* STAGE_THREAD: a thread's tid and name (again at close, if it was renamed meanwhile). */
static int conv_thread_chunk(struct stage_conv *c, int64_t number, const unsigned char *p, uint32_t bytes)
{
    struct stage_thread st;
    struct conv_thread *t = conv_thread(c, number);
    if (!t || bytes < sizeof st)
        return -1;
    memcpy(&st, p, sizeof st);
    if (st.name_len > bytes - sizeof st)
        return -1;
    t->os_tid = st.os_tid;
    if (t->name.n == st.name_len && (!st.name_len || memcmp(t->name.p, p + sizeof st, st.name_len) == 0))
        return 0;
    t->name.n = 0;
    if (buf_add(&t->name, p + sizeof st, st.name_len) != 0)
        return -1;
    if (t->track >= 0 && st.name_len) /* renamed after it first recorded */
        return tdb_ingest_thread_meta(c->ing, t->track, "thread_name", conv_str(t->name.p, t->name.n), 0);
    return 0;
}

/* PyTorch's emit_nvtx names operator ranges "aten::mm, seq = 3, op_id = 7, sizes = [[2, 3], [3, 4]]":
 * the operator's name is before the first ", ", and the sizes become "Input Dims" args. Returns n when
 * name is not one. */
static size_t conv_op_name(const char *name, size_t n, struct buf *args)
{
    if (n < 8) /* shorter than the marker (an empty name has no buffer at all) */
        return n;
    const char *comma = memmem(name, n, ", seq = ", 8);
    if (!comma)
        comma = memmem(name, n, ", op_id = ", 10);
    if (!comma)
        return n;
    const char *sizes = memmem(name, n, ", sizes = ", 10);
    args->n = 0;
    if (sizes) {
        const char *s = sizes + 10, *end = name + n;
        buf_add(args, "{\"Input Dims\":", 14);
        for (; s < end; s++)
            if (*s != ' ')
                buf_addc(args, *s);
        buf_addc(args, '}');
    }
    return (size_t)(comma - name);
}

/* A complete range. One ended on its own thread's stack (t) is written with its id, parent, depth and
 * self time from that stack, where `below` frames were under it; start/stop ranges get theirs from the
 * end-of-trace sweep. */
static int conv_emit_range(struct stage_conv *c, int64_t track, struct conv_frame *f, int64_t end,
                           struct conv_thread *t, size_t below)
{
    struct tdb_event ev;
    tdb_event_init(&ev);
    int64_t dur = end >= f->start ? end - f->start : 0;
    if (t) {
        ev.id = f->id;
        ev.depth = (int)below;
        if (below) {
            struct conv_frame *parent = &t->stack[below - 1];
            ev.parent_id = parent->id;
            parent->child_ns += dur;
        }
        ev.self_ns = dur > f->child_ns ? dur - f->child_ns : 0;
        if (!t->closed)
            t->closed = malloc(CLOSED_KEEP * sizeof *t->closed); /* none kept when out of memory: the end nests */
        if (t->closed)
            t->closed[t->nclosed++ % CLOSED_KEEP] = (struct conv_closed){f->start, f->start + dur, f->id, (int)below};
    }
    c->scratch.n = 0;
    size_t n = conv_op_name(f->name.p, f->name.n, &c->scratch);
    ev.kind = n != f->name.n ? TDB_KIND_OP : f->kind;
    ev.name = conv_str(f->name.p, n);
    ev.cat = f->cat.n ? conv_str(f->cat.p, f->cat.n) : (struct tdb_str){NULL, 0};
    ev.thread_id = track;
    ev.start_ns = f->start;
    ev.dur_ns = dur;
    if (c->scratch.n)
        ev.args = conv_str(c->scratch.p, c->scratch.n);
    else if (f->args.n)
        ev.args = conv_str(f->args.p, f->args.n);
    c->events++;
    return tdb_ingest_event(c->ing, &ev) < 0 ? -1 : 0;
}

/* A range's args as the program gave them, if they are a JSON object in valid UTF-8; bad bytes become
 * U+FFFD, and text that is not a JSON object is kept as a string under "tracedb.args". */
static void conv_args(struct buf *out, const char *args, size_t n)
{
    if (!n)
        return;
    cJSON *doc = cJSON_ParseWithLength(args, n);
    int object = cJSON_IsObject(doc);
    cJSON_Delete(doc);
    if (object) {
        buf_add_utf8(out, args, n);
        return;
    }
    buf_add(out, "{\"tracedb.args\":", 16);
    buf_add_json_string(out, args, n);
    buf_addc(out, '}');
}

/* A range begins on thread t: pushed on its stack, with its id reserved now. */
static int conv_begin(struct stage_conv *c, struct conv_thread *t, const struct rec *x, int64_t domain,
                      const char *name)
{
    if (t->depth == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 16;
        struct conv_frame *s = realloc(t->stack, ncap * sizeof *s);
        if (!s)
            return -1;
        memset(s + t->cap, 0, (ncap - t->cap) * sizeof *s);
        t->stack = s, t->cap = ncap;
    }
    struct conv_frame *f = &t->stack[t->depth++];
    f->start = x->ts;
    f->kind = x->kind;
    f->id = tdb_ingest_reserve_id(c->ing);
    f->child_ns = 0;
    f->domain = domain;
    f->name.n = f->cat.n = f->args.n = 0;
    buf_add(&f->name, name, x->name_len);
    buf_add(&f->cat, name + x->name_len, x->cat_len);
    conv_args(&f->args, name + x->name_len + x->cat_len, x->args_len);
    return 0;
}

/* Ends the innermost range of its NVTX domain on thread t (nearly always the top one) at ts. */
static int conv_end(struct stage_conv *c, struct conv_thread *t, int64_t track, int64_t domain, int64_t ts)
{
    size_t k = t->depth;
    while (k > 0 && t->stack[k - 1].domain != domain)
        k--;
    if (k == 0)
        return 0; /* a pop without a push: nothing to end */
    struct conv_frame f = t->stack[k - 1];
    int rc = conv_emit_range(c, track, &f, ts, t, k - 1);
    /* the frames above it close ranks; its buffers go to the free slot on top, for reuse */
    memmove(&t->stack[k - 1], &t->stack[k], (t->depth - k) * sizeof *t->stack);
    t->stack[--t->depth] = f;
    return rc;
}

/* Ends the start/stop range id at ts, or keeps the stop until its start comes (another thread's chunk). */
static int conv_async_stop(struct stage_conv *c, int64_t id, int64_t ts)
{
    for (size_t i = 0; i < c->nopen; i++) {
        if (c->open[i].id != id)
            continue;
        struct conv_open o = c->open[i];
        struct conv_frame f = {o.start, TDB_KIND_RANGE, o.name, o.cat, {0}, TDB_NULL, 0, 0};
        int rc = conv_emit_range(c, o.track, &f, ts, NULL, 0);
        c->open[i] = c->open[--c->nopen];
        c->open[c->nopen] = o; /* keep its buffers for reuse */
        return rc;
    }
    if (c->nstops == c->stops_cap) {
        size_t ncap = c->stops_cap ? c->stops_cap * 2 : 16;
        struct conv_stop *s = realloc(c->stops, ncap * sizeof *s);
        if (!s)
            return -1;
        c->stops = s, c->stops_cap = ncap;
    }
    c->stops[c->nstops++] = (struct conv_stop){id, ts};
    return 0;
}

/* A start/stop range starts: kept open by id, or ended at once when its stop came first. */
static int conv_async_start(struct stage_conv *c, int64_t track, const struct rec *x, int64_t id, const char *name)
{
    if (c->nopen == c->open_cap) {
        size_t ncap = c->open_cap ? c->open_cap * 2 : 16;
        struct conv_open *o = realloc(c->open, ncap * sizeof *o);
        if (!o)
            return -1;
        memset(o + c->open_cap, 0, (ncap - c->open_cap) * sizeof *o);
        c->open = o, c->open_cap = ncap;
    }
    struct conv_open *o = &c->open[c->nopen++];
    o->id = id, o->start = x->ts, o->track = track;
    o->name.n = o->cat.n = 0;
    buf_add(&o->name, name, x->name_len);
    buf_add(&o->cat, name + x->name_len, x->cat_len);
    for (size_t i = 0; i < c->nstops; i++) {
        if (c->stops[i].id != id)
            continue;
        int64_t ts = c->stops[i].ts;
        c->stops[i] = c->stops[--c->nstops];
        return conv_async_stop(c, id, ts);
    }
    return 0;
}

/* An instant or a memory event: inside the range open on its thread. */
static int conv_point(struct stage_conv *c, const struct conv_thread *t, int64_t track, const struct rec *x,
                      const struct rec_ext *e, const char *name)
{
    struct tdb_event ev;
    tdb_event_init(&ev);
    ev.kind = x->type == R_MEMORY ? TDB_KIND_MEMORY : TDB_KIND_INSTANT;
    ev.name = conv_str(name, x->name_len);
    ev.thread_id = track;
    ev.start_ns = x->ts;
    ev.depth = (int)t->depth;
    if (t->depth)
        ev.parent_id = t->stack[t->depth - 1].id;
    if (x->type == R_MEMORY) {
        ev.addr = e->a;
        ev.bytes = e->b;
        int device = e->v >= 0 && e->v < 1 << 20; /* -1: host memory; a device past this is damage */
        ev.device = device ? (int64_t)e->v : TDB_NULL;
        ev.device_type = device;
    }
    c->events++;
    return tdb_ingest_event(c->ing, &ev) < 0 ? -1 : 0;
}

/* One ring record of thread t (its size checked by the caller). */
static int conv_record(struct stage_conv *c, struct conv_thread *t, const struct rec *x)
{
    static const struct rec_ext none = {0, 0, 0};
    const struct rec_ext *e = x->flags & REC_EXT ? (const struct rec_ext *)(x + 1) : &none;
    const char *name = (const char *)(x + 1) + (x->flags & REC_EXT ? sizeof *e : 0);
    int64_t track = conv_track(c, t);
    if (track < 0)
        return -1;
    if (x->ts > t->last_ts)
        t->last_ts = x->ts;
    switch (x->type) {
    case R_BEGIN:
        return conv_begin(c, t, x, e->a, name);
    case R_END:
        return conv_end(c, t, track, e->a, x->ts);
    case R_START:
        return conv_async_start(c, track, x, e->a, name);
    case R_STOP:
        return conv_async_stop(c, e->a, x->ts);
    case R_INSTANT:
    case R_MEMORY:
        return conv_point(c, t, track, x, e, name);
    case R_COUNTER:
        c->events++;
        return tdb_ingest_counter(c->ing, track, conv_str(name, x->name_len), x->ts, e->v);
    }
    return -1;
}

/* A record's counter ticks as CLOCK_REALTIME nanoseconds: on the line through the two latest clock pairs
 * (the records of a chunk were stamped just before the latest, or at most a pass after it), never
 * before the thread's previous record. */
static int64_t conv_ns(const struct stage_conv *c, const struct conv_thread *t, int64_t tsc)
{
    int64_t ns = c->last.ns < 0 ? 0 : c->last.ns > TDB_TIME_MAX ? TDB_TIME_MAX : c->last.ns;
    if (c->clocks >= 2 && c->last.tsc != c->prev.tsc) {
        /* in long double: a damaged file's pairs may be any int64, whose differences overflow */
        long double slope = ((long double)c->last.ns - (long double)c->prev.ns) /
                            ((long double)c->last.tsc - (long double)c->prev.tsc);
        long double v = (long double)c->last.ns + ((long double)tsc - (long double)c->last.tsc) * slope;
        ns = !(v >= 0) ? 0 : v > (long double)TDB_TIME_MAX ? TDB_TIME_MAX : (int64_t)v;
    }
    return ns < t->last_ts ? t->last_ts : ns;
}

static int conv_records(struct stage_conv *c, int64_t number, unsigned char *p, uint32_t bytes)
{
    struct conv_thread *t = conv_thread(c, number);
    if (!t)
        return -1;
    for (uint32_t off = 0; off < bytes;) {
        struct rec *x = (struct rec *)(p + off);
        if (bytes - off < 8)
            return -1;
        uint32_t size = x->type == R_PAD ? REC_PAD_LEN(x) : bytes - off >= sizeof *x ? rec_size(x) : 0;
        if (size < 8 || size > bytes - off || size % 8)
            return -1;
        if (x->type != R_PAD && c->clocks)
            x->ts = conv_ns(c, t, x->ts);
        else if (x->type != R_PAD) /* CLOCK_REALTIME ns: a time before 1970 or past 2116 is damage, held in range */
            x->ts = x->ts < 0 ? 0 : x->ts > TDB_TIME_MAX ? TDB_TIME_MAX : x->ts;
        if (x->type != R_PAD && conv_record(c, t, x) != 0)
            return -1;
        off += size;
    }
    return 0;
}

/* The stage_event at off of a chunk's payload: its strings and its size, padded; 0 at the end, -1 when
 * the payload is damaged. */
static int conv_event_at(const unsigned char *p, uint32_t bytes, uint32_t off, struct stage_event *se,
                         struct tdb_str strs[3], uint32_t *size)
{
    if (off >= bytes)
        return 0;
    if (bytes - off < sizeof *se)
        return -1;
    memcpy(se, p + off, sizeof *se);
    uint64_t len = sizeof *se;
    const char *s = (const char *)p + off + sizeof *se;
    uint32_t lens[3] = {se->name_len, se->cat_len, se->args_len};
    for (int i = 0; i < 3; i++) {
        uint64_t n = lens[i] == UINT32_MAX ? 0 : lens[i];
        if (len + n > bytes - off)
            return -1;
        strs[i] = lens[i] == UINT32_MAX ? (struct tdb_str){NULL, 0} : (struct tdb_str){s, n};
        s += n, len += n;
    }
    len = (len + 7) & ~(uint64_t)7;
    *size = len > bytes - off ? bytes - off : (uint32_t)len;
    return 1;
}

/* call_nest's enclosing: the innermost NVTX range of track's thread around [start, start + dur] (the
 * sweep's rule: it starts no later, ends no earlier, and after the start), among the latest ranges that
 * ended (the first of them ending at or after it that starts no later is the innermost) and, failing
 * those, the ranges still open. */
static int conv_enclosing(void *ctx, int64_t track, int64_t start, int64_t dur, int64_t *id, int *depth)
{
    struct stage_conv *c = ctx;
    struct conv_thread *t = c->last_thread ? &c->threads[c->last_thread - 1] : NULL;
    if (!t || t->track != track) {
        t = NULL;
        for (size_t i = 0; i < c->nthreads && !t; i++)
            if (c->threads[i].track == track)
                t = &c->threads[i], c->last_thread = i + 1;
    }
    if (!t)
        return 0;
    int64_t end = start + dur;
    if (t->closed && t->nclosed) {
        uint64_t first = t->nclosed > CLOSED_KEEP ? t->nclosed - CLOSED_KEEP : 0, lo = first, hi = t->nclosed;
        while (lo < hi) { /* the first kept range that ends at or after the call */
            uint64_t mid = lo + (hi - lo) / 2;
            if (t->closed[mid % CLOSED_KEEP].end < end)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (uint64_t k = lo; k < t->nclosed && k < lo + CLOSED_LOOK; k++) {
            const struct conv_closed *r = &t->closed[k % CLOSED_KEEP];
            if (r->start <= start && r->end > start) {
                *id = r->id, *depth = r->depth;
                return 1;
            }
        }
    }
    for (size_t k = t->depth; k-- > 0;)
        if (t->stack[k].start <= start && t->stack[k].id != TDB_NULL) {
            *id = t->stack[k].id, *depth = (int)k;
            return 1;
        }
    return 0;
}

/* STAGE_EVENTS: CUPTI's complete events, one buffer's. In a recording, each gets its row id first, then
 * the chunk is nested and linked (call_nest.c), then written; where memory for that runs out, the rows
 * are written as they come and the end of the trace nests them. */
static int conv_events(struct stage_conv *c, const unsigned char *p, uint32_t bytes)
{
    struct stage_event se;
    struct tdb_str strs[3];
    uint32_t size;
    size_t count = 0;
    int rc, nest = tdb_ingest_reserves_ids(c->ing); /* a recording, whose rows get their ids first */
    for (uint32_t off = 0; nest && conv_event_at(p, bytes, off, &se, strs, &size) > 0; off += size)
        count++; /* up to damage, if any: the events before it are written below, as they would be without */
    if (nest && count > c->calls_cap) {
        struct call_row *r = realloc(c->calls, count * sizeof *r);
        if (r)
            c->calls = r, c->calls_cap = count;
    }
    if (nest && (count > c->calls_cap || (!c->nest && !(c->nest = call_nest_new()))))
        nest = 0;
    size_t i = 0;
    for (uint32_t off = 0; nest && conv_event_at(p, bytes, off, &se, strs, &size) > 0; off += size, i++) {
        int64_t track = tdb_ingest_thread_ids(c->ing, se.pid, se.tid);
        if (track < 0)
            return -1;
        tdb_time_clamp(&se.start_ns, &se.dur_ns); /* as tdb_ingest_event will hold them */
        c->calls[i] = (struct call_row){.id = tdb_ingest_reserve_id(c->ing), .track = track, .start = se.start_ns,
                                        .dur = se.dur_ns, .corr = se.correlation, .kind = se.kind};
    }
    int guessed = nest && call_nest_chunk(c->nest, c->calls, count, conv_enclosing, c) == 0;
    i = 0;
    for (uint32_t off = 0; (rc = conv_event_at(p, bytes, off, &se, strs, &size)) != 0; off += size, i++) {
        if (rc < 0)
            return -1;
        struct tdb_event ev;
        tdb_event_init(&ev);
        ev.kind = se.kind;
        ev.name = strs[0].p ? strs[0] : conv_str("", 0);
        ev.cat = strs[1], ev.args = strs[2];
        ev.start_ns = se.start_ns, ev.dur_ns = se.dur_ns;
        ev.correlation = se.correlation, ev.external_id = se.external_id;
        ev.device = se.device, ev.stream = se.stream, ev.bytes = se.bytes;
        ev.has_launch = se.has_launch;
        memcpy(ev.grid, se.grid, sizeof ev.grid);
        memcpy(ev.block, se.block, sizeof ev.block);
        ev.registers = se.registers, ev.shared_mem = se.shared_mem;
        ev.blocks_per_sm = se.blocks_per_sm, ev.warps_per_sm = se.warps_per_sm, ev.occupancy_pct = se.occupancy_pct;
        ev.addr = se.addr, ev.total_allocated = se.total_allocated, ev.total_reserved = se.total_reserved;
        ev.device_type = se.device_type;
        ev.thread_id = tdb_ingest_thread_ids(c->ing, se.pid, se.tid);
        if (nest) /* its reserved id */
            ev.id = c->calls[i].id;
        if (guessed) { /* what the end of the trace will most likely find: rows it finds so are not rewritten */
            const struct call_row *r = &c->calls[i];
            ev.parent_id = r->parent, ev.depth = r->depth, ev.self_ns = r->self;
            ev.launch_id = r->launch, ev.launch_ns = r->launch_ns;
        }
        if (ev.thread_id < 0 || tdb_ingest_event(c->ing, &ev) < 0)
            return -1;
        c->events++;
    }
    return 0;
}

int stage_conv_chunk(struct stage_conv *c, const struct stage_chunk *h, unsigned char *p)
{
    switch (h->type) {
    case STAGE_CLOCK:
        if (h->bytes < sizeof c->last)
            return -1;
        c->prev = c->last;
        memcpy(&c->last, p, sizeof c->last);
        c->clocks++;
        return 0;
    case STAGE_PROCESS:
        c->process.n = 0;
        return buf_add(&c->process, p, strnlen((const char *)p, h->bytes));
    case STAGE_THREAD:
        return conv_thread_chunk(c, h->thread, p, h->bytes);
    case STAGE_RECORDS:
        return conv_records(c, h->thread, p, h->bytes);
    case STAGE_EVENTS:
        return conv_events(c, p, h->bytes);
    case STAGE_CLOSE: {
        struct stage_close sc;
        if (h->bytes < sizeof sc)
            return -1;
        memcpy(&sc, p, sizeof sc);
        sc.end_ns = sc.end_ns < 0 ? 0 : sc.end_ns > TDB_TIME_MAX ? TDB_TIME_MAX : sc.end_ns;
        c->closed = 1;
        c->dropped = sc.dropped;
        return stage_conv_end(c, sc.end_ns);
    }
    }
    return -1;
}

/* Reads exactly n bytes at off; 1 when the file ends first, -1 on an error. */
static int conv_pread(int fd, void *p, size_t n, int64_t off)
{
    for (size_t got = 0; got < n;) {
        ssize_t k = pread(fd, (char *)p + got, n - got, (off_t)(off + (int64_t)got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            return 1;
        got += (size_t)k;
    }
    return 0;
}

int64_t stage_conv_file(struct stage_conv *c, int fd, int64_t from, int64_t to, int64_t budget, FILE *err,
                        const char *path)
{
    int64_t off = from;
    while ((to < 0 || off + (int64_t)sizeof(struct stage_chunk) <= to) && (budget < 0 || off - from < budget)) {
        struct stage_chunk h;
        int rc = conv_pread(fd, &h, sizeof h, off);
        if (rc == 1)
            break;
        if (rc < 0 || h.type < STAGE_PROCESS || h.type > STAGE_CLOCK || h.bytes % 8) {
            fprintf(err, "tracedb: %s: %s at byte %lld\n", path, rc < 0 ? strerror(errno) : "not a chunk",
                    (long long)off);
            return -1;
        }
        if (to >= 0 && off + (int64_t)sizeof h + h.bytes > to)
            break;
        c->chunk.n = 0;
        if (h.bytes > c->chunk.cap) {
            char *p = realloc(c->chunk.p, h.bytes);
            if (!p)
                return -1;
            c->chunk.p = p, c->chunk.cap = h.bytes;
        }
        rc = conv_pread(fd, c->chunk.p, h.bytes, off + (int64_t)sizeof h);
        if (rc == 1)
            break; /* torn by a crash: the chunks before it are whole */
        if (rc < 0 || stage_conv_chunk(c, &h, (unsigned char *)c->chunk.p) != 0) {
            fprintf(err, "tracedb: %s: %s in the chunk at byte %lld\n", path,
                    rc < 0 ? strerror(errno) : "damaged records or a database error", (long long)off);
            return -1;
        }
        off += (int64_t)sizeof h + h.bytes;
        if (c->closed)
            break;
    }
    return off;
}

int stage_conv_end(struct stage_conv *c, int64_t end_ns)
{
    for (size_t i = 0; i < c->nthreads; i++) {
        struct conv_thread *t = &c->threads[i];
        int64_t track = t->depth ? conv_track(c, t) : 0;
        if (track < 0)
            return -1;
        while (t->depth) {
            struct conv_frame *f = &t->stack[--t->depth];
            int64_t end = end_ns == TDB_NULL ? t->last_ts : end_ns;
            c->never_ended += end_ns == TDB_NULL;
            if (conv_emit_range(c, track, f, end > f->start ? end : f->start, t, t->depth) != 0)
                return -1;
        }
    }
    return 0;
}

int stage_conv_closed(const struct stage_conv *c, int64_t *dropped)
{
    *dropped = c->dropped;
    return c->closed;
}

int64_t stage_conv_events(const struct stage_conv *c)
{
    return c->events;
}

int64_t stage_conv_never_ended(const struct stage_conv *c)
{
    return c->never_ended;
}

int stage_read_header(int fd, const char *path, int64_t *pid, FILE *err)
{
    unsigned char h[STAGE_HEADER_BYTES];
    int rc = conv_pread(fd, h, sizeof h, 0);
    if (rc != 0 || memcmp(h, STAGE_MAGIC, 8) != 0) {
        fprintf(err, "tracedb: %s: not a tracedb staging file%s\n", path, rc < 0 ? " (cannot read it)" : "");
        return -1;
    }
    memcpy(pid, h + 8, sizeof *pid);
    return 0;
}

int stage_event_encode(struct buf *out, int64_t pid, int64_t tid, const struct tdb_event *ev)
{
    struct stage_event se;
    memset(&se, 0, sizeof se);
    se.pid = pid, se.tid = tid;
    se.start_ns = ev->start_ns, se.dur_ns = ev->dur_ns;
    se.correlation = ev->correlation, se.external_id = ev->external_id;
    se.device = ev->device, se.stream = ev->stream, se.bytes = ev->bytes;
    memcpy(se.grid, ev->grid, sizeof se.grid);
    memcpy(se.block, ev->block, sizeof se.block);
    se.registers = ev->registers, se.shared_mem = ev->shared_mem;
    se.addr = ev->addr, se.total_allocated = ev->total_allocated, se.total_reserved = ev->total_reserved;
    se.device_type = ev->device_type;
    se.blocks_per_sm = ev->blocks_per_sm, se.warps_per_sm = ev->warps_per_sm, se.occupancy_pct = ev->occupancy_pct;
    se.kind = ev->kind, se.has_launch = ev->has_launch;
    const struct tdb_str *strs[3] = {&ev->name, &ev->cat, &ev->args};
    uint32_t *lens[3] = {&se.name_len, &se.cat_len, &se.args_len};
    size_t total = sizeof se;
    for (int i = 0; i < 3; i++) {
        size_t n = strs[i]->p ? strs[i]->n : 0;
        if (n >= UINT32_MAX / 4)
            n = 0; /* no CUPTI string is this long */
        *lens[i] = strs[i]->p ? (uint32_t)n : UINT32_MAX;
        total += n;
    }
    static const char zeros[8];
    if (buf_add(out, &se, sizeof se) != 0)
        return -1;
    for (int i = 0; i < 3; i++)
        if (*lens[i] != UINT32_MAX && buf_add(out, strs[i]->p, *lens[i]) != 0)
            return -1;
    return buf_add(out, zeros, (8 - total % 8) % 8);
}
