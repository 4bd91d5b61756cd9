/* recording_writer.c: the live recorder's writer thread (see recording.c). It drains every thread's ring
 * (every 10 ms, or at once while they are busy), matches begins with ends on each thread's own stack,
 * pairs start/stop ranges across threads, names the tracks, and hands complete events to the store
 * (ingest.c, live mode), committing at least every 100 ms. */
#define _GNU_SOURCE
#include "recording_internal.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct tdb_str rec_str(const char *p, size_t n)
{
    struct tdb_str s = {p ? p : "", p ? n : 0};
    return s;
}

/* Reads a small /proc file of this process into out (NUL-terminated, trailing newline cut); its length. */
static size_t rec_proc_read(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(out, 1, cap - 1, f) : 0;
    if (f)
        fclose(f);
    out[n] = 0;
    if (n && out[n - 1] == '\n')
        out[--n] = 0;
    return n;
}

/* Names thread t's track as the operating system knows the thread (pthread_setname_np, as top shows
 * it), and, with the first track, the process after its program (argv[0] without its directory).
 * Done when the thread first records and again at the end, in case it was renamed meanwhile (a thread
 * gone by then keeps the name it had when it first recorded). */
int rec_name_track(struct tdb_recording *r, struct rec_thread *t, int with_process)
{
    char path[64], name[256];
    snprintf(path, sizeof path, "/proc/self/task/%lld/comm", (long long)t->os_tid);
    size_t n = rec_proc_read(path, name, sizeof name);
    if (!n) /* the thread has exited: its name from when it first recorded */
        n = strlen(strcpy(name, t->os_name));
    if (n && tdb_ingest_thread_meta(r->ing, t->track, "thread_name", rec_str(name, n), 0) != 0)
        return -1;
    if (!with_process || !(n = rec_proc_read("/proc/self/cmdline", name, sizeof name)))
        return 0;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    return tdb_ingest_thread_meta(r->ing, t->track, "process_name", rec_str(base, strlen(base)), 0);
}

int64_t rec_track(struct tdb_recording *r, struct rec_thread *t)
{
    if (t->track >= 0)
        return t->track;
    t->track = tdb_ingest_thread_ids(r->ing, getpid(), t->os_tid);
    if (t->track >= 0 && rec_name_track(r, t, !r->named_process) != 0)
        return -1;
    r->named_process = 1;
    return t->track;
}

/* PyTorch's emit_nvtx names operator ranges "aten::mm, seq = 3, op_id = 7, sizes = [[2, 3], [3, 4]]":
 * the operator's name is before the first ", ", and the sizes become "Input Dims" args. Checked here,
 * on the writer thread, not when the program pushes the range. Returns n when name is not one. */
static size_t rec_op_name(const char *name, size_t n, struct buf *args)
{
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

/* A complete range. A range ended on its own thread's stack is written with its id, parent, depth and
 * self time from that stack (so a database read while recording has them); the end-of-trace sweep
 * (ingest.c) is still the one nesting rule for every source, and rewrites any row it places
 * otherwise. Ranges started and ended across threads get theirs from the sweep alone. */
int rec_emit_range(struct tdb_recording *r, int64_t track, struct rec_frame *f, int64_t end,
                          const struct rec_thread *stack_of, size_t below)
{
    struct tdb_event ev;
    tdb_event_init(&ev);
    if (stack_of) { /* f was just taken off stack_of, where `below` frames were under it */
        ev.id = f->id;
        ev.depth = (int)below;
        if (below) {
            struct rec_frame *parent = &stack_of->stack[below - 1];
            ev.parent_id = parent->id;
            parent->child_ns += end >= f->start ? end - f->start : 0;
        }
        int64_t dur = end >= f->start ? end - f->start : 0;
        ev.self_ns = dur > f->child_ns ? dur - f->child_ns : 0;
    }
    r->scratch.n = 0;
    size_t n = rec_op_name(f->name.p, f->name.n, &r->scratch);
    ev.kind = n != f->name.n ? TDB_KIND_OP : f->kind;
    ev.name = rec_str(f->name.p, n);
    ev.cat = f->cat.n ? rec_str(f->cat.p, f->cat.n) : (struct tdb_str){NULL, 0};
    ev.thread_id = track;
    ev.start_ns = f->start;
    ev.dur_ns = end >= f->start ? end - f->start : 0;
    if (r->scratch.n)
        ev.args = rec_str(r->scratch.p, r->scratch.n);
    else if (f->args.n)
        ev.args = rec_str(f->args.p, f->args.n);
    r->events++;
    return tdb_ingest_event(r->ing, &ev) < 0 ? -1 : 0;
}

/* A range's args as the program gave them, if they are a JSON object in valid UTF-8; bad bytes become
 * U+FFFD, and text that is not a JSON object is kept as a string under "tracedb.args". */
static void rec_args(struct buf *out, const char *args, size_t n)
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

/* A range begins on thread t: pushed on its stack, with its id reserved now (the rows inside it name it). */
static int rec_range_begin(struct tdb_recording *r, struct rec_thread *t, const struct rec *x, const char *name,
                           const char *cat)
{
    if (t->depth == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 16;
        struct rec_frame *s = realloc(t->stack, ncap * sizeof *s);
        if (!s)
            return -1;
        memset(s + t->cap, 0, (ncap - t->cap) * sizeof *s);
        t->stack = s, t->cap = ncap;
    }
    struct rec_frame *f = &t->stack[t->depth++];
    f->start = x->ts;
    f->kind = x->kind;
    f->id = tdb_ingest_reserve_id(r->ing);
    f->child_ns = 0;
    f->domain = x->a;
    f->name.n = f->cat.n = f->args.n = 0;
    buf_add(&f->name, name, x->name_len);
    buf_add(&f->cat, cat, x->cat_len);
    rec_args(&f->args, cat + x->cat_len, x->args_len);
    return 0;
}

/* Ends the innermost range of its NVTX domain on thread t (nearly always the top one). */
static int rec_range_end(struct tdb_recording *r, struct rec_thread *t, int64_t track, const struct rec *x)
{
    size_t k = t->depth;
    while (k > 0 && t->stack[k - 1].domain != x->a)
        k--;
    if (k == 0)
        return 0; /* a pop without a push: nothing to end */
    struct rec_frame f = t->stack[k - 1];
    int rc = rec_emit_range(r, track, &f, x->ts, t, k - 1);
    /* the frames above it close ranks; its buffers go to the free slot on top, for reuse */
    memmove(&t->stack[k - 1], &t->stack[k], (t->depth - k) * sizeof *t->stack);
    t->stack[--t->depth] = f;
    return rc;
}

/* Ends the start/stop range id at ts, or keeps the stop until its start is drained (another thread's
 * ring may hold it). */
static int rec_async_stop(struct tdb_recording *r, int64_t id, int64_t ts)
{
    for (size_t i = 0; i < r->nopen; i++) {
        if (r->open[i].id != id)
            continue;
        struct rec_open o = r->open[i];
        struct rec_frame f = {o.start, TDB_KIND_RANGE, o.name, o.cat, {0}, TDB_NULL, 0, 0};
        int rc = rec_emit_range(r, o.track, &f, ts, NULL, 0);
        r->open[i] = r->open[--r->nopen];
        r->open[r->nopen] = o; /* keep its buffers for reuse */
        return rc;
    }
    if (r->nstops == r->stops_cap) {
        size_t ncap = r->stops_cap ? r->stops_cap * 2 : 16;
        struct rec_stop *s = realloc(r->stops, ncap * sizeof *s);
        if (!s)
            return -1;
        r->stops = s, r->stops_cap = ncap;
    }
    r->stops[r->nstops++] = (struct rec_stop){id, ts};
    return 0;
}

/* A start/stop range (any thread may end it) starts: kept open by id, or ended at once when its stop
 * was drained first. */
static int rec_async_start(struct tdb_recording *r, int64_t track, const struct rec *x, const char *name,
                           const char *cat)
{
    if (r->nopen == r->open_cap) {
        size_t ncap = r->open_cap ? r->open_cap * 2 : 16;
        struct rec_open *o = realloc(r->open, ncap * sizeof *o);
        if (!o)
            return -1;
        memset(o + r->open_cap, 0, (ncap - r->open_cap) * sizeof *o);
        r->open = o, r->open_cap = ncap;
    }
    struct rec_open *o = &r->open[r->nopen++];
    o->id = x->a, o->start = x->ts, o->track = track;
    o->name.n = o->cat.n = 0;
    buf_add(&o->name, name, x->name_len);
    buf_add(&o->cat, cat, x->cat_len);
    for (size_t i = 0; i < r->nstops; i++) {
        if (r->stops[i].id != x->a)
            continue;
        int64_t ts = r->stops[i].ts;
        r->stops[i] = r->stops[--r->nstops];
        return rec_async_stop(r, x->a, ts);
    }
    return 0;
}

/* An instant or a memory event: inside the range open on its thread, as the sweep will find. */
static int rec_point(struct tdb_recording *r, const struct rec_thread *t, int64_t track, const struct rec *x,
                     const char *name)
{
    struct tdb_event ev;
    tdb_event_init(&ev);
    ev.kind = x->type == R_MEMORY ? TDB_KIND_MEMORY : TDB_KIND_INSTANT;
    ev.name = rec_str(name, x->name_len);
    ev.thread_id = track;
    ev.start_ns = x->ts;
    ev.depth = (int)t->depth;
    if (t->depth)
        ev.parent_id = t->stack[t->depth - 1].id;
    if (x->type == R_MEMORY) {
        ev.addr = x->a;
        ev.bytes = x->b;
        ev.device = x->v < 0 ? TDB_NULL : (int64_t)x->v;
        ev.device_type = x->v < 0 ? 0 : 1;
    }
    r->events++;
    return tdb_ingest_event(r->ing, &ev) < 0 ? -1 : 0;
}

/* One record from thread t's ring. */
static int rec_apply(struct tdb_recording *r, struct rec_thread *t, const struct rec *x)
{
    const char *name = (const char *)(x + 1), *cat = name + x->name_len;
    int64_t track = rec_track(r, t);
    if (track < 0)
        return -1;
    switch (x->type) {
    case R_BEGIN:
        return rec_range_begin(r, t, x, name, cat);
    case R_END:
        return rec_range_end(r, t, track, x);
    case R_START:
        return rec_async_start(r, track, x, name, cat);
    case R_STOP:
        return rec_async_stop(r, x->a, x->ts);
    case R_INSTANT:
    case R_MEMORY:
        return rec_point(r, t, track, x, name);
    case R_COUNTER:
        return tdb_ingest_counter(r->ing, track, rec_str(name, x->name_len), x->ts, x->v);
    }
    return 0;
}

/* Moves everything the threads have published into the database. */
int rec_drain(struct tdb_recording *r, size_t *records)
{
    for (struct rec_thread *t = atomic_load(&r->threads); t; t = t->next) {
        if (!t->ring.buf)
            continue; /* retired and freed */
        int retired = atomic_load_explicit(&t->ring.retired, memory_order_acquire);
        size_t tail = atomic_load_explicit(&t->ring.tail, memory_order_relaxed);
        size_t head = atomic_load_explicit(&t->ring.head, memory_order_acquire);
        while (tail != head) {
            const struct rec *x = (const struct rec *)(t->ring.buf + (tail & (RING_BYTES - 1)));
            if (x->type == R_PAD) {
                tail += RING_BYTES - (tail & (RING_BYTES - 1));
                continue;
            }
            if (rec_apply(r, t, x) != 0)
                return -1;
            ++*records;
            tail += (sizeof(struct rec) + x->name_len + x->cat_len + x->args_len + 7) & ~(size_t)7;
        }
        atomic_store_explicit(&t->ring.tail, tail, memory_order_release);
        if (retired) { /* its thread is gone and everything it wrote is drained */
            free(t->ring.buf);
            t->ring.buf = NULL;
        }
    }
    return 0;
}

void *rec_writer_main(void *arg)
{
    struct tdb_recording *r = arg;
    pthread_setname_np(pthread_self(), "tracedb-rec"); /* as top and perf show it */
    size_t drained = 0;
    pthread_mutex_lock(&r->lock);
    while (!r->stop) {
        if (drained < BUSY_DRAIN) { /* the rings were nearly empty: wait a while */
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += DRAIN_EVERY_NS;
            if (until.tv_nsec >= 1000000000)
                until.tv_sec++, until.tv_nsec -= 1000000000;
            pthread_cond_timedwait(&r->wake, &r->lock, &until);
        }
        if (r->stop)
            break;
        pthread_mutex_unlock(&r->lock);
        pthread_mutex_lock(&r->ingest);
        drained = 0;
        int rc = r->failed ? 0 : rec_drain(r, &drained);
        int64_t now = rec_now();
        if (rc == 0 && !r->failed && now - r->last_commit >= COMMIT_EVERY_NS) {
            rc = tdb_ingest_commit(r->ing);
            r->last_commit = now;
        }
        pthread_mutex_unlock(&r->ingest);
        pthread_mutex_lock(&r->lock);
        if (rc != 0)
            r->failed = 1;
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}
