/* recording.c: the live recorder behind the C API (include/tracedb.h), NVTX capture and
 * `tracedb record`.
 *
 * Hot path: each thread owns a single-producer ring of fixed-layout records (begin, end, instant,
 * counter, memory) in a 1 MiB buffer, registered on its first event and freed once the thread has
 * exited and the writer has drained it. Recording an event takes the
 * clock, copies the name into the ring and publishes it with one release store: no lock, no
 * allocation. When a ring is full the event is dropped and counted (never block, never grow); a
 * kept range always has room for its end, and a dropped range takes everything inside it along, so
 * drops never pair one range's begin with another's end.
 *
 * Writer thread: it drains every ring (every 10 ms, or at once while they are busy), matches begins
 * with ends on each thread's own stack and hands complete events to the ingest writer (ingest.c, live
 * mode: the same schema and code paths as imports). A range's id is taken when it begins, so rows
 * carry parent, depth and self time from the stack; the importer's sweep at the end checks them (the
 * one nesting rule), links GPU work to launches and writes the sums. It commits at least every
 * 100 ms (WAL), so a killed program keeps everything but its last 100 ms and the database can be
 * read while the program runs. Closing drains, ends ranges still open, names the threads, writes the
 * sums, the drop count and meta, and commits. A child forked meanwhile forgets the recording.
 */
#define _GNU_SOURCE
#include "recording.h"
#include "ingest.h"
#include "jsonbuf.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_BYTES (1u << 20)     /* per thread */
#define REC_TRACKED_DEPTH 4096    /* ranges open at once on a thread whose begin is remembered */
#define NAME_MAX_BYTES 1024       /* longer names are cut */
#define DRAIN_EVERY_NS 10000000   /* 10 ms, when the rings were nearly empty ... */
#define BUSY_DRAIN 1024           /* ... else at once: a drain that found this many records goes on */
#define COMMIT_EVERY_NS 100000000 /* 100 ms */

/* Room set aside for the end of each kept range: an end record and the padding that may precede it. */
#define END_ROOM (2 * sizeof(struct rec))

enum rec_type { R_BEGIN = 1, R_END, R_INSTANT, R_COUNTER, R_MEMORY, R_START, R_STOP, R_PAD };

/* One record in a ring; the name follows, then padding to 8 bytes. */
struct rec {
    uint16_t type;
    uint16_t name_len;
    uint16_t cat_len; /* a category (NVTX domain) follows the name */
    uint16_t kind;    /* the event kind of a range (op for NVTX operator names, range otherwise) */
    uint32_t args_len; /* a JSON object of args follows the category */
    uint32_t unused;
    int64_t ts;
    int64_t a;        /* R_START/R_STOP: range id; R_MEMORY: address; R_BEGIN/R_END: NVTX domain (0: none) */
    int64_t b;        /* R_MEMORY: bytes (negative = free); */
    double v;         /* R_COUNTER: value; R_MEMORY: device */
};

struct rec_ring {
    unsigned char *buf;
    _Atomic size_t head; /* written by the thread */
    _Atomic size_t tail; /* written by the writer */
    _Atomic int64_t dropped;
    _Atomic int retired; /* its thread has exited: once drained, the buffer is freed */
};

/* Writer-side state of an open range on a thread. */
struct rec_frame {
    int64_t start;
    int kind;
    struct buf name, cat, args;
    int64_t id;       /* reserved when it began: what begins inside it names it as parent */
    int64_t child_ns; /* the durations of its direct children so far */
    int64_t domain;   /* NVTX domain handle (0: the default domain): a pop ends its own domain's range */
};

struct rec_thread {
    struct rec_ring ring;
    /* the thread's own: ranges begun (kept) and not ended yet, whose ends have room set aside in the
     * ring; and how deep inside a dropped range the thread is (its whole subtree is dropped with it,
     * so every kept end meets its own begin) */
    uint32_t open_ends, skip_depth;
    /* the thread's own too: ranges begun and not ended, kept or not (see rec_keep_range_edge); bit d
     * of left_out says whether the one begun at depth d was left out */
    uint32_t open_depth;
    uint64_t left_out[REC_TRACKED_DEPTH / 64];
    int64_t os_tid;
    char os_name[17];          /* the thread's name when it first recorded (it may be gone at the end) */
    struct rec_thread *next;   /* every thread ever registered (never freed before close) */
    int64_t track;             /* ingest thread id */
    struct rec_frame *stack;   /* writer side */
    size_t depth, cap;
};

/* A range started on one thread and ended anywhere (nvtxRangeStart/End). */
struct rec_open {
    int64_t id, start, track;
    struct buf name, cat;
};

struct tdb_recording {
    struct tdb_ingest *ing;
    char *path;
    struct tdb_options opt;
    _Atomic(struct rec_thread *) threads;
    pthread_t writer;
    pthread_mutex_t lock;      /* stop flag and wake-ups */
    pthread_cond_t wake;
    pthread_mutex_t ingest;    /* whoever writes to the database: the writer, tdb_flush, CUPTI buffers */
    int stop;
    int failed;
    int64_t last_commit;
    struct rec_open *open;
    size_t nopen, open_cap;
    struct rec_stop { int64_t id, ts; } *stops; /* ends seen before their start (another thread's ring) */
    size_t nstops, stops_cap;
    int64_t next_range_id;     /* handed out by tdb_range_start */
    _Atomic int64_t range_ids;
    int named_process;         /* the process's name is written */
    int64_t step;              /* the current ProfilerStep number */
    int step_open;             /* a ProfilerStep range is open (on the stepping thread) */
    _Atomic int active;        /* events are kept (the schedule's active steps; always without one) */
    unsigned kinds;            /* bit k: keep records of rec_type k */
    struct buf scratch;
    int64_t events;
    uint64_t generation;       /* rec_generations at open: tells threads' rings of old recordings apart */
    pid_t owner;               /* the process that opened it: a forked child never writes to it */
};

static struct tdb_recording *_Atomic rec_global;  /* the one recording of the process, as NVTX's */
static _Atomic uint64_t rec_generations;          /* numbers every recording of the process */
static _Thread_local struct rec_thread *rec_self; /* this thread's ring ... */
static _Thread_local uint64_t rec_self_gen;       /* ... in the recording with this number */

/* A child forked while recording (a DataLoader worker, say) records nothing and never touches its
 * parent's database or writer thread, which it does not have: it forgets the recording at once. */
static void rec_forget_after_fork(void)
{
    atomic_store(&rec_global, NULL);
}

static pthread_key_t rec_exit_key; /* its destructor runs when a thread that recorded exits */
static void rec_thread_exit(void *p);

/* Once per process, at the first tdb_open: watch for forks and for threads exiting. */
static void rec_process_hooks(void)
{
    pthread_atfork(NULL, NULL, rec_forget_after_fork);
    pthread_key_create(&rec_exit_key, rec_thread_exit);
}

static int64_t rec_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t); /* CUPTI's default clock too */
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* ---------------------------------------------------------------- hot path */

/* A thread that recorded is exiting: its ring is retired, so that a program starting thread after
 * thread holds one ring per live thread, not one per thread it ever ran. */
static void rec_thread_exit(void *p)
{
    struct tdb_recording *r = atomic_load(&rec_global);
    if (r && rec_self == p && rec_self_gen == r->generation)
        atomic_store_explicit(&((struct rec_thread *)p)->ring.retired, 1, memory_order_release);
    rec_self = NULL; /* should it record again on its way out, it gets a new ring */
}

static struct rec_thread *rec_thread_get(struct tdb_recording *r)
{
    struct rec_thread *t = rec_self;
    if (t && rec_self_gen == r->generation) /* a ring of an earlier recording is gone with it */
        return t;
    t = calloc(1, sizeof *t); /* once per thread */
    if (!t || !(t->ring.buf = malloc(RING_BYTES))) {
        free(t);
        return NULL;
    }
    t->os_tid = (int64_t)syscall(SYS_gettid);
    prctl(PR_GET_NAME, t->os_name, 0, 0, 0); /* once per thread */
    t->track = -1;
    struct rec_thread *head = atomic_load(&r->threads);
    do
        t->next = head;
    while (!atomic_compare_exchange_weak(&r->threads, &head, t));
    rec_self = t;
    rec_self_gen = r->generation;
    pthread_setspecific(rec_exit_key, t);
    return t;
}

/* Appends one record; drops it (counted) when the ring is full. */
/* Ranges a thread has begun and not ended, kept or not: a range's end is kept exactly when its
 * begin was, whatever the schedule says by then (begun in an active step, ended after the window: it
 * ends where it ended, not at the end of the recording; begun outside, ended inside: its end ends no
 * other range). */
/* Whether a begin (kept by the schedule and kinds: keep) or an end is kept, keeping them paired. */
static int rec_keep_range_edge(struct rec_thread *t, int type, int keep)
{
    uint32_t d = t->open_depth;
    if (type == R_BEGIN) {
        if (d < REC_TRACKED_DEPTH) {
            uint64_t bit = (uint64_t)1 << (d % 64);
            t->left_out[d / 64] = keep ? t->left_out[d / 64] & ~bit : t->left_out[d / 64] | bit;
        }
        t->open_depth = d + 1;
        return keep;
    }
    if (d == 0)
        return keep; /* an end with no begin: the writer ignores it */
    t->open_depth = --d;
    return d >= REC_TRACKED_DEPTH || !(t->left_out[d / 64] >> (d % 64) & 1);
}

static void rec_put_args(int type, int kind, const char *name, size_t name_len, const char *cat, size_t cat_len,
                         const char *args, size_t args_len, int64_t ts, int64_t a, int64_t b, double v)
{
    struct tdb_recording *r = atomic_load_explicit(&rec_global, memory_order_acquire);
    if (!r)
        return;
    int keep = (r->kinds & (1u << type)) && atomic_load_explicit(&r->active, memory_order_relaxed);
    int edge = type == R_BEGIN || type == R_END;
    if (!keep && !edge)
        return;
    struct rec_thread *t = rec_thread_get(r);
    if (!t || (edge && !rec_keep_range_edge(t, type, keep))) /* a non-edge here is kept */
        return;
    if (t->skip_depth && type != R_START && type != R_STOP) { /* inside a dropped range */
        if (type == R_BEGIN)
            t->skip_depth++;
        else if (type == R_END)
            t->skip_depth--;
        atomic_fetch_add_explicit(&t->ring.dropped, 1, memory_order_relaxed);
        return;
    }
    if (name_len > NAME_MAX_BYTES)
        name_len = NAME_MAX_BYTES;
    if (cat_len > 255)
        cat_len = 255;
    if (args_len > 16384)
        args_len = 0; /* too large for a ring record: the range is kept without them */
    size_t need = (sizeof(struct rec) + name_len + cat_len + args_len + 7) & ~(size_t)7;
    size_t head = atomic_load_explicit(&t->ring.head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&t->ring.tail, memory_order_acquire);
    size_t off = head & (RING_BYTES - 1);
    size_t pad = RING_BYTES - off < need ? RING_BYTES - off : 0; /* records never wrap */
    /* an end uses the room its begin set aside; anything else leaves that room free */
    int own_end = type == R_END && t->open_ends > 0;
    size_t reserve = (size_t)(t->open_ends - own_end + (type == R_BEGIN)) * END_ROOM;
    if (head + pad + need + reserve - tail > RING_BYTES) {
        if (type == R_BEGIN)
            t->skip_depth = 1;
        atomic_fetch_add_explicit(&t->ring.dropped, 1, memory_order_relaxed);
        return;
    }
    if (type == R_BEGIN)
        t->open_ends++;
    else if (own_end)
        t->open_ends--;
    if (pad) {
        ((struct rec *)(t->ring.buf + off))->type = R_PAD;
        head += pad;
        off = 0;
    }
    struct rec *x = (struct rec *)(t->ring.buf + off);
    x->type = (uint16_t)type;
    x->kind = (uint16_t)kind;
    x->name_len = (uint16_t)name_len;
    x->cat_len = (uint16_t)cat_len;
    x->args_len = (uint32_t)args_len;
    x->ts = ts;
    x->a = a;
    x->b = b;
    x->v = v;
    if (name_len)
        memcpy(x + 1, name, name_len);
    if (cat_len)
        memcpy((char *)(x + 1) + name_len, cat, cat_len);
    if (args_len)
        memcpy((char *)(x + 1) + name_len + cat_len, args, args_len);
    atomic_store_explicit(&t->ring.head, head + need, memory_order_release);
}

static void rec_put(int type, int kind, const char *name, size_t name_len, const char *cat, size_t cat_len, int64_t ts,
                    int64_t a, int64_t b, double v)
{
    rec_put_args(type, kind, name, name_len, cat, cat_len, NULL, 0, ts, a, b, v);
}

void tdb_range_push_args(const char *name, const char *args_json)
{
    rec_put_args(R_BEGIN, TDB_KIND_RANGE, name, name ? strlen(name) : 0, NULL, 0, args_json,
                 args_json ? strlen(args_json) : 0, rec_now(), 0, 0, 0);
}

void tdb_range_push(const char *name)
{
    rec_put(R_BEGIN, TDB_KIND_RANGE, name, name ? strlen(name) : 0, NULL, 0, rec_now(), 0, 0, 0);
}

void tdb_range_pop(void)
{
    rec_put(R_END, 0, NULL, 0, NULL, 0, rec_now(), 0, 0, 0);
}

void tdb_range_push_cat(const char *name, const char *cat)
{
    rec_put(R_BEGIN, TDB_KIND_RANGE, name, name ? strlen(name) : 0, cat, cat ? strlen(cat) : 0, rec_now(),
            (int64_t)(uintptr_t)cat, 0, 0);
}

void tdb_range_pop_cat(const char *cat)
{
    rec_put(R_END, 0, NULL, 0, NULL, 0, rec_now(), (int64_t)(uintptr_t)cat, 0, 0);
}

int64_t tdb_range_start(const char *name)
{
    struct tdb_recording *r = atomic_load(&rec_global);
    if (!r)
        return 0;
    int64_t id = atomic_fetch_add(&r->range_ids, 1) + 1;
    rec_put(R_START, TDB_KIND_RANGE, name, name ? strlen(name) : 0, NULL, 0, rec_now(), id, 0, 0);
    return id;
}

void tdb_range_end(int64_t id)
{
    rec_put(R_STOP, 0, NULL, 0, NULL, 0, rec_now(), id, 0, 0);
}

void tdb_instant(const char *name)
{
    rec_put(R_INSTANT, TDB_KIND_INSTANT, name, name ? strlen(name) : 0, NULL, 0, rec_now(), 0, 0, 0);
}

void tdb_counter(const char *name, double value)
{
    rec_put(R_COUNTER, 0, name, name ? strlen(name) : 0, NULL, 0, rec_now(), 0, 0, value);
}

void tdb_mem_alloc(const void *addr, size_t bytes, int device)
{
    rec_put(R_MEMORY, TDB_KIND_MEMORY, "[memory]", 8, NULL, 0, rec_now(), (int64_t)(uintptr_t)addr, (int64_t)bytes, device);
}

void tdb_mem_free(const void *addr, size_t bytes, int device)
{
    rec_put(R_MEMORY, TDB_KIND_MEMORY, "[memory]", 8, NULL, 0, rec_now(), (int64_t)(uintptr_t)addr, -(int64_t)bytes,
            device);
}

void tdb_section(const char *label)
{
    tdb_range_push(label);
}

void tdb_section_end(void)
{
    tdb_range_pop();
}

/* ---------------------------------------------------------------- writer */

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
static int rec_name_track(struct tdb_recording *r, struct rec_thread *t, int with_process)
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

static int64_t rec_track(struct tdb_recording *r, struct rec_thread *t)
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
static int rec_emit_range(struct tdb_recording *r, int64_t track, struct rec_frame *f, int64_t end,
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
static int rec_drain(struct tdb_recording *r, size_t *records)
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

static void *rec_writer_main(void *arg)
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

/* ---------------------------------------------------------------- open, steps, close */

/* Which records to keep, from the level (1: device work only; 2: host ranges, marks, counters and
 * memory too) or an explicit list of kinds. */
static int rec_kinds(const struct tdb_options *o, unsigned *mask)
{
    unsigned host = 1u << R_BEGIN | 1u << R_END | 1u << R_START | 1u << R_STOP | 1u << R_INSTANT | 1u << R_COUNTER |
                    1u << R_MEMORY;
    if (!o->kinds) {
        *mask = o->level == 1 ? 0 : host;
        return 0;
    }
    static const struct {
        const char *name;
        unsigned bits;
    } kinds[] = {{"range", 1u << R_BEGIN | 1u << R_END | 1u << R_START | 1u << R_STOP},
                 {"instant", 1u << R_INSTANT},
                 {"counter", 1u << R_COUNTER},
                 {"memory", 1u << R_MEMORY},
                 {"kernel", 0}, {"memcpy", 0}, {"memset", 0}, {"runtime", 0}, {"driver", 0}}; /* device kinds: CUPTI */
    *mask = 0;
    for (const char *p = o->kinds; *p;) {
        size_t n = strcspn(p, ",");
        int found = 0;
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
            if (strlen(kinds[i].name) == n && strncmp(kinds[i].name, p, n) == 0)
                *mask |= kinds[i].bits, found = 1;
        if (!found)
            return -1;
        p += n + (p[n] == ',');
    }
    return 0;
}

struct tdb_recording *tdb_open(const char *path, const struct tdb_options *opt)
{
    static const struct tdb_options defaults = {.level = 2};
    if (!path)
        return NULL;
    struct tdb_recording *expected = NULL;
    struct tdb_recording *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return NULL;
    }
    if (atomic_load(&rec_global)) {
        fprintf(stderr, "tracedb: a recording is already open in this process\n");
        free(r->path), free(r);
        return NULL;
    }
    static pthread_once_t hooks = PTHREAD_ONCE_INIT;
    pthread_once(&hooks, rec_process_hooks);
    r->owner = getpid();
    r->generation = atomic_fetch_add(&rec_generations, 1) + 1;
    r->opt = opt ? *opt : defaults;
    if (rec_kinds(&r->opt, &r->kinds) != 0) {
        fprintf(stderr, "tracedb: unknown kind in '%s' (range, instant, counter, memory)\n", r->opt.kinds);
        free(r->path), free(r);
        return NULL;
    }
    atomic_store(&r->active, r->opt.active > 0 && r->opt.skip_first + r->opt.wait + r->opt.warmup > 0 ? 0 : 1);
    r->ing = tdb_ingest_open(path, TDB_OPEN_LIVE, stderr);
    if (!r->ing) {
        free(r->path), free(r);
        return NULL;
    }
    char source[64];
    snprintf(source, sizeof source, "pid %ld", (long)getpid());
    tdb_ingest_begin_trace(r->ing, source, "recorder");
    r->last_commit = rec_now();
    pthread_mutex_init(&r->lock, NULL);
    pthread_mutex_init(&r->ingest, NULL);
    pthread_cond_init(&r->wake, NULL);
    int claimed = atomic_compare_exchange_strong(&rec_global, &expected, r);
    if (!claimed || pthread_create(&r->writer, NULL, rec_writer_main, r) != 0) {
        fprintf(stderr, "tracedb: %s\n", claimed ? "cannot start the writer thread" : "a recording is already open in this process");
        if (claimed)
            atomic_store(&rec_global, NULL);
        tdb_ingest_abort(r->ing);
        unlink(path);
        free(r->path), free(r);
        return NULL;
    }
    return r;
}

/* A step boundary: ends the step in progress (ProfilerStep#N, a range) and starts the next. With a
 * schedule (PyTorch's skip_first, wait, warmup, active, repeat), events are kept only during active
 * steps, and on_cycle runs after each completed cycle with everything so far committed. */
void tdb_step(void)
{
    struct tdb_recording *r = atomic_load(&rec_global);
    if (!r)
        return;
    const struct tdb_options *o = &r->opt;
    if (r->step_open) {
        rec_put(R_END, 0, NULL, 0, NULL, 0, rec_now(), 0, 0, 0);
        r->step_open = 0;
    }
    r->step++;
    int64_t cycle = o->wait + o->warmup + o->active;
    int64_t pos = r->step - 1 - o->skip_first; /* steps counted from 1, as PyTorch's ProfilerStep#N */
    int active = 1;
    if (o->active > 0) {
        if (pos < 0 || (o->repeat > 0 && pos >= cycle * o->repeat))
            active = 0;
        else
            active = pos % cycle >= o->wait + o->warmup;
        if (pos > 0 && pos % cycle == 0 && o->on_cycle && (o->repeat == 0 || pos / cycle <= o->repeat)) {
            tdb_flush();
            o->on_cycle(r, o->on_cycle_arg);
        }
    }
    atomic_store(&r->active, active);
    if (active) {
        char name[48];
        int n = snprintf(name, sizeof name, "ProfilerStep#%lld", (long long)r->step);
        rec_put(R_BEGIN, TDB_KIND_RANGE, name, (size_t)n, NULL, 0, rec_now(), 0, 0, 0);
        r->step_open = 1;
    }
}

int tdb_flush(void)
{
    struct tdb_recording *r = atomic_load(&rec_global);
    if (!r)
        return -1;
    pthread_mutex_lock(&r->ingest);
    size_t drained = 0;
    int rc = r->failed ? -1 : rec_drain(r, &drained);
    if (rc == 0)
        rc = tdb_ingest_commit(r->ing);
    r->last_commit = rec_now();
    pthread_mutex_unlock(&r->ingest);
    return rc;
}

int64_t tdb_dropped(void)
{
    struct tdb_recording *r = atomic_load(&rec_global);
    int64_t n = 0;
    for (struct rec_thread *t = r ? atomic_load(&r->threads) : NULL; t; t = t->next)
        n += atomic_load(&t->ring.dropped);
    return n;
}

int tdb_recording_ingest(struct tdb_recording *r, int (*fn)(struct tdb_ingest *ing, void *arg), void *arg)
{
    if (!r || r->owner != getpid()) /* a forked child's copy: its lock may be held forever */
        return -1;
    pthread_mutex_lock(&r->ingest);
    int rc = r->failed ? -1 : fn(r->ing, arg);
    pthread_mutex_unlock(&r->ingest);
    return rc;
}

/* What the threads leave at the end: their names as they are now, and ranges still open, which end
 * with the recording (their ids are taken; a range is not lost because the program never popped it
 * before exit). */
static int rec_finish_threads(struct tdb_recording *r, int64_t end)
{
    for (struct rec_thread *t = atomic_load(&r->threads); t; t = t->next) {
        if (t->track >= 0 && rec_name_track(r, t, 0) != 0) /* renamed since it first recorded? */
            return -1;
        int64_t track = t->depth ? rec_track(r, t) : 0;
        if (track < 0)
            return -1;
        while (t->depth) {
            struct rec_frame *f = &t->stack[--t->depth];
            if (rec_emit_range(r, track, f, end > f->start ? end : f->start, t, t->depth) != 0)
                return -1;
        }
    }
    return 0;
}

int tdb_close(struct tdb_recording *r)
{
    if (!r)
        return -1;
    if (r->owner != getpid()) /* inherited through fork: the parent's to close */
        return -1;
    if (r->step_open) /* the last step ends here */
        rec_put(R_END, 0, NULL, 0, NULL, 0, rec_now(), 0, 0, 0);
    r->step_open = 0;
    pthread_mutex_lock(&r->lock);
    r->stop = 1;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->writer, NULL);
    struct tdb_recording *self = r;
    atomic_compare_exchange_strong(&rec_global, &self, NULL);
    int64_t end = rec_now(); /* after every event of the recording */
    pthread_mutex_lock(&r->ingest); /* a CUPTI buffer completing now waits, then finds no recording */
    pthread_mutex_unlock(&r->ingest);
    size_t drained = 0;
    int rc = r->failed ? -1 : rec_drain(r, &drained);
    if (rc == 0)
        rc = rec_finish_threads(r, end);
    int64_t dropped = 0;
    for (struct rec_thread *t = atomic_load(&r->threads); t; t = t->next)
        dropped += atomic_load(&t->ring.dropped);
    char extra[96];
    snprintf(extra, sizeof extra, "{\"dropped_events\":%lld}", (long long)dropped);
    struct tdb_trace_info info = {
        .source_format = "recorder", .base_time_ns = TDB_NULL, .rank = TDB_NULL,
        .extra = extra, .status = dropped ? "partial" : "complete",
        .error = dropped ? "events dropped: the writer fell behind (see extra.dropped_events)" : NULL,
        .skipped_events = dropped,
    };
    if (rc == 0)
        rc = tdb_ingest_end_trace(r->ing, &info);
    if (rc == 0) {
        rc = tdb_ingest_finish(r->ing, dropped == 0);
    } else {
        tdb_ingest_abort(r->ing);
    }
    /* threads' rings: a thread may still hold a pointer in its thread-local; it checks rec_global first */
    for (struct rec_thread *t = atomic_load(&r->threads), *next; t; t = next) {
        next = t->next;
        for (size_t i = 0; i < t->cap; i++)
            buf_free(&t->stack[i].name), buf_free(&t->stack[i].cat), buf_free(&t->stack[i].args);
        free(t->stack);
        if (t == rec_self) /* other threads see the generation change */
            rec_self = NULL;
        free(t->ring.buf);
        free(t);
    }
    for (size_t i = 0; i < r->open_cap; i++)
        buf_free(&r->open[i].name), buf_free(&r->open[i].cat);
    free(r->open);
    free(r->stops);
    buf_free(&r->scratch);
    pthread_mutex_destroy(&r->lock);
    pthread_mutex_destroy(&r->ingest);
    pthread_cond_destroy(&r->wake);
    free(r->path);
    free(r);
    return rc;
}

struct tdb_recording *tdb_current(void)
{
    return atomic_load(&rec_global);
}

/* TRACEDB_OUTPUT=run.db records any program linked with libtracedb, with no code change. */
static void rec_env_close(void)
{
    struct tdb_recording *r = atomic_load(&rec_global);
    if (r)
        tdb_close(r);
}

__attribute__((constructor)) static void rec_env_open(void)
{
    const char *out = getenv("TRACEDB_OUTPUT");
    if (!out || !*out || atomic_load(&rec_global))
        return;
    struct stat sb;
    char alt[4096];
    if (stat(out, &sb) == 0) { /* one database per process: a child of a recorded program gets its own */
        snprintf(alt, sizeof alt, "%s.%ld", out, (long)getpid());
        out = alt;
    }
    struct tdb_options o = {.level = 2};
    const char *level = getenv("TRACEDB_LEVEL"), *schedule = getenv("TRACEDB_SCHEDULE");
    if (level)
        o.level = atoi(level);
    o.kinds = getenv("TRACEDB_KINDS");
    if (schedule && sscanf(schedule, "%d,%d,%d,%d,%d", &o.skip_first, &o.wait, &o.warmup, &o.active, &o.repeat) != 5) {
        fprintf(stderr, "tracedb: TRACEDB_SCHEDULE wants skip_first,wait,warmup,active,repeat, not '%s'\n", schedule);
        return;
    }
    if (tdb_open(out, &o))
        atexit(rec_env_close);
}
