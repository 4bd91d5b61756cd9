/* recording.c: the live recorder behind the C API (include/tracedb.h), NVTX capture and
 * `tracedb record`.
 *
 * It works as nsys and perf do: while the program runs, events are only copied, as compact binary
 * records, into a staging file beside the database ("run.db-stage", stage_format.h); rows are built
 * from it in the background and at close. Three parts:
 *   - hot path (here): each thread owns a single-producer ring of records (a 16-byte head, the name;
 *     a push is 24-32 bytes, a pop 16) in a 4 MiB buffer, registered on its first event and freed once
 *     the thread has exited and its ring is staged. Recording an event takes the clock, copies the name
 *     and publishes it with one release store: no lock, no allocation, no wait. When a ring is full the
 *     event is dropped and counted; a kept range always has room for its end, and a dropped range takes
 *     everything inside it along, so drops never pair one range's begin with another's end.
 *   - writer thread (recording_writer.c): appends each ring's contents to the staging file every 1 ms
 *     while busy (10 ms otherwise), as they are: a copy into the page cache, so it never falls behind
 *     and a killed program keeps everything up to its last 10 ms. CUPTI's buffers are staged too.
 *   - converter thread (recording_convert.c, stage_convert.c): at idle priority, turns staged chunks
 *     into rows (ranges nested by their begin/end order on each thread's stack) and commits every
 *     100 ms (WAL), so reports read a running recording. Closing stages the rest, converts what is
 *     left, links GPU work and writes the sums (ingest_trace.c), and removes the staging file; after a
 *     crash, `tracedb finish` builds the database from the staging file (finish.c).
 * A child forked meanwhile forgets the recording.
 */
#define _GNU_SOURCE
#include "recording_internal.h"
#include "ingest.h"
#include "stage_convert.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>


static struct tdb_recording *_Atomic rec_global;  /* the one recording of the process, as NVTX's */
static _Atomic uint64_t rec_generations;          /* numbers every recording of the process */
/* initial-exec: in a shared library (libtracedb.so, the injection library) the default model calls
 * __tls_get_addr on every event; these 16 bytes come from the static TLS surplus instead */
#define REC_TLS static _Thread_local __attribute__((tls_model("initial-exec")))
REC_TLS struct rec_thread *rec_self; /* this thread's ring ... */
REC_TLS uint64_t rec_self_gen;       /* ... in the recording with this number */

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
    if (!t || !(t->ring.buf = calloc(1, r->ring_bytes))) { /* zeroed: padding never carries stale heap bytes */
        free(t);
        return NULL;
    }
    t->os_tid = (int64_t)syscall(SYS_gettid);
    prctl(PR_GET_NAME, t->os_name, 0, 0, 0); /* once per thread */
    t->ring.size = r->ring_bytes;
    t->number = atomic_fetch_add(&r->thread_numbers, 1) + 1;
    struct rec_thread *head = atomic_load(&r->threads);
    do
        t->next = head;
    while (!atomic_compare_exchange_weak(&r->threads, &head, t));
    rec_self = t;
    rec_self_gen = r->generation;
    pthread_setspecific(rec_exit_key, t);
    return t;
}

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

/* Copies a name: 8 bytes at a time, then the rest. (A plain memcpy of a length the compiler knows is at
 * most 1 KiB became `rep movsq`, whose start-up cost was half of a push+pop.) */
static inline void rec_copy(char *dst, const char *src, size_t n)
{
    for (; n >= 8; n -= 8, src += 8, dst += 8) {
        uint64_t w;
        memcpy(&w, src, 8);
        memcpy(dst, &w, 8);
    }
    for (; n; n--)
        *dst++ = *src++;
}

/* Appends one record (head, extension when ext, name, category, args) to this thread's ring, or drops it,
 * counted, when the ring is full: never a lock, never an allocation, never a wait. */
static inline __attribute__((always_inline)) void rec_put(int type, int kind, const char *name, size_t name_len, const char *cat, size_t cat_len,
                    const char *args, size_t args_len, int64_t ts, const struct rec_ext *ext)
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
    if (args_len > ARGS_MAX_BYTES)
        args_len = 0; /* too large for a ring record: the range is kept without them */
    size_t ext_len = ext ? sizeof *ext : 0;
    size_t need = (sizeof(struct rec) + ext_len + name_len + cat_len + args_len + 7) & ~(size_t)7;
    size_t head = atomic_load_explicit(&t->ring.head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&t->ring.tail, memory_order_acquire);
    size_t size = t->ring.size, off = head & (size - 1);
    size_t pad = size - off < need ? size - off : 0; /* records never wrap */
    /* an end uses the room its begin set aside; anything else leaves that room free */
    int own_end = type == R_END && t->open_ends > 0;
    size_t reserve = (size_t)(t->open_ends - own_end + (type == R_BEGIN)) * END_ROOM;
    if (head + pad + need + reserve - tail > size) {
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
        unsigned char *p = t->ring.buf + off;
        p[0] = R_PAD;
        memcpy(p + 4, &(uint32_t){(uint32_t)pad}, 4);
        head += pad;
        off = 0;
    }
    struct rec *x = (struct rec *)(t->ring.buf + off);
    x->type = (uint8_t)type;
    x->kind = (uint8_t)kind;
    x->flags = ext ? REC_EXT : 0;
    x->cat_len = (uint8_t)cat_len;
    x->name_len = (uint16_t)name_len;
    x->args_len = (uint16_t)args_len;
    x->ts = ts;
    char *p = (char *)(x + 1);
    if (ext)
        memcpy(p, ext, sizeof *ext), p += sizeof *ext;
    rec_copy(p, name, name_len);
    if (cat_len)
        rec_copy(p + name_len, cat, cat_len);
    if (args_len)
        memcpy(p + name_len + cat_len, args, args_len);
    atomic_store_explicit(&t->ring.head, head + need, memory_order_release);
}

#define REC_EXT_OF(A, B, V) (&(struct rec_ext){(A), (B), (V)})

/* With a schedule: a range pushed (name) or popped (NULL) may begin or end a step (recording_steps.c). */
static inline void rec_step_edge(const char *name, const char *cat, int begin)
{
    struct tdb_recording *r = atomic_load_explicit(&rec_global, memory_order_acquire);
    if (!r || !r->step_glob)
        return;
    struct rec_thread *t = rec_thread_get(r);
    if (t && begin)
        rec_step_push(r, t, name ? name : "", cat);
    else if (t)
        rec_step_pop(r, t, cat);
}

void tdb_range_push_args(const char *name, const char *args_json)
{
    rec_put(R_BEGIN, TDB_KIND_RANGE, name, name ? strlen(name) : 0, NULL, 0, args_json, args_json ? strlen(args_json) : 0,
            rec_stamp(), NULL);
    rec_step_edge(name, NULL, 1);
}

void tdb_range_push(const char *name)
{
    rec_put(R_BEGIN, TDB_KIND_RANGE, name, name ? strlen(name) : 0, NULL, 0, NULL, 0, rec_stamp(), NULL);
    rec_step_edge(name, NULL, 1);
}

void tdb_range_pop(void)
{
    rec_put(R_END, 0, NULL, 0, NULL, 0, NULL, 0, rec_stamp(), NULL);
    rec_step_edge(NULL, NULL, 0);
}

void tdb_range_push_cat(const char *name, const char *cat)
{
    rec_put(R_BEGIN, TDB_KIND_RANGE, name, name ? strlen(name) : 0, cat, cat ? strlen(cat) : 0, NULL, 0, rec_stamp(),
            cat ? REC_EXT_OF((int64_t)(uintptr_t)cat, 0, 0) : NULL);
    rec_step_edge(name, cat, 1);
}

void tdb_range_pop_cat(const char *cat)
{
    rec_put(R_END, 0, NULL, 0, NULL, 0, NULL, 0, rec_stamp(), cat ? REC_EXT_OF((int64_t)(uintptr_t)cat, 0, 0) : NULL);
    rec_step_edge(NULL, cat, 0);
}

int64_t tdb_range_start(const char *name)
{
    struct tdb_recording *r = atomic_load(&rec_global);
    if (!r)
        return 0;
    int64_t id = atomic_fetch_add(&r->range_ids, 1) + 1;
    rec_put(R_START, TDB_KIND_RANGE, name, name ? strlen(name) : 0, NULL, 0, NULL, 0, rec_stamp(), REC_EXT_OF(id, 0, 0));
    if (r->step_glob)
        rec_step_start(r, id, name ? name : "");
    return id;
}

void tdb_range_end(int64_t id)
{
    rec_put(R_STOP, 0, NULL, 0, NULL, 0, NULL, 0, rec_stamp(), REC_EXT_OF(id, 0, 0));
    struct tdb_recording *r = atomic_load_explicit(&rec_global, memory_order_acquire);
    if (r && r->step_glob)
        rec_step_end(r, id);
}

void tdb_instant(const char *name)
{
    rec_put(R_INSTANT, TDB_KIND_INSTANT, name, name ? strlen(name) : 0, NULL, 0, NULL, 0, rec_stamp(), NULL);
}

void tdb_counter(const char *name, double value)
{
    rec_put(R_COUNTER, 0, name, name ? strlen(name) : 0, NULL, 0, NULL, 0, rec_stamp(), REC_EXT_OF(0, 0, value));
}

void tdb_mem_alloc(const void *addr, size_t bytes, int device)
{
    rec_put(R_MEMORY, TDB_KIND_MEMORY, "[memory]", 8, NULL, 0, NULL, 0, rec_stamp(),
            REC_EXT_OF((int64_t)(uintptr_t)addr, (int64_t)bytes, device));
}

void tdb_mem_free(const void *addr, size_t bytes, int device)
{
    rec_put(R_MEMORY, TDB_KIND_MEMORY, "[memory]", 8, NULL, 0, NULL, 0, rec_stamp(),
            REC_EXT_OF((int64_t)(uintptr_t)addr, -(int64_t)bytes, device));
}

void tdb_section(const char *label)
{
    tdb_range_push(label);
}

void tdb_section_end(void)
{
    tdb_range_pop();
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

int tdb_recording_keeps_host(const struct tdb_options *o)
{
    unsigned mask;
    return rec_kinds(o, &mask) == 0 && mask != 0;
}

int tdb_recording_options(const char *level, const char *kinds, const char *schedule, struct tdb_options *o, FILE *err)
{
    *o = (struct tdb_options){.level = 2, .kinds = kinds};
    if (level)
        o->level = atoi(level);
    unsigned mask;
    if (rec_kinds(o, &mask) != 0) {
        if (err)
            fprintf(err, "tracedb: unknown kind in '%s' (range, instant, counter, memory)\n", kinds);
        return -1;
    }
    int *v[] = {&o->skip_first, &o->wait, &o->warmup, &o->active, &o->repeat};
    const char *p = schedule;
    for (size_t i = 0; p && i < sizeof v / sizeof v[0]; i++) { /* five whole numbers, comma-separated, nothing else */
        char *end = NULL;
        errno = 0;
        long n = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : -1;
        if (n < 0 || n > 1000000000 || errno || *end != (i + 1 < sizeof v / sizeof v[0] ? ',' : '\0')) {
            if (err)
                fprintf(err, "tracedb: a schedule is skip_first,wait,warmup,active,repeat (five whole numbers of steps), not '%s'\n",
                    schedule);
            return -1;
        }
        *v[i] = (int)n;
        p = end + 1;
    }
    return 0;
}

/* The staging file beside the database, claimed like the database (O_EXCL: one left by a recording that
 * crashed is refused until `tracedb finish` has used it), with its header and the process's name. */
static int rec_stage_open(struct tdb_recording *r)
{
    size_t n = strlen(r->path) + sizeof STAGE_SUFFIX;
    if (!(r->stage_path = malloc(n)))
        return -1;
    snprintf(r->stage_path, n, "%s%s", r->path, STAGE_SUFFIX);
    r->stage_fd = open(r->stage_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (r->stage_fd < 0) {
        fprintf(stderr, "tracedb: %s: %s\n", r->stage_path,
                errno == EEXIST ? "a recording that never closed left it: run tracedb finish on its database, "
                                  "or remove it" : strerror(errno));
        return -1;
    }
    unsigned char head[STAGE_HEADER_BYTES];
    int64_t pid = getpid();
    memcpy(head, STAGE_MAGIC, 8);
    memcpy(head + 8, &pid, 8);
    if (pwrite(r->stage_fd, head, sizeof head, 0) != (ssize_t)sizeof head)
        return -1;
    atomic_store(&r->staged, STAGE_HEADER_BYTES);
    r->converted = STAGE_HEADER_BYTES;
    if (rec_use_tsc && rec_stage_clock(r) != 0)
        return -1;
    char cmd[256];
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t len = f ? fread(cmd, 1, sizeof cmd - 1, f) : 0;
    if (f)
        fclose(f);
    cmd[len] = 0;
    const char *base = strrchr(cmd, '/');
    base = base ? base + 1 : cmd;
    return *base ? rec_stage_chunk(r, STAGE_PROCESS, 0, base, strlen(base)) : 0;
}

static void rec_free(struct tdb_recording *r)
{
    if (r->stage_fd > 0)
        close(r->stage_fd);
    stage_conv_free(r->conv);
    free(r->step_glob);
    free(r->stage_path);
    free(r->path);
    free(r);
}

struct tdb_recording *tdb_open(const char *path, const struct tdb_options *opt)
{
    return tdb_open_steps(path, opt, NULL);
}

struct tdb_recording *tdb_open_steps(const char *path, const struct tdb_options *opt, const char *step_glob)
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
    r->stage_fd = -1;
    if (atomic_load(&rec_global)) {
        fprintf(stderr, "tracedb: a recording is already open in this process\n");
        rec_free(r);
        return NULL;
    }
    static pthread_once_t hooks = PTHREAD_ONCE_INIT;
    pthread_once(&hooks, rec_process_hooks);
    r->owner = getpid();
    r->generation = atomic_fetch_add(&rec_generations, 1) + 1;
    r->opt = opt ? *opt : defaults;
    if (r->opt.active > 0 && !(r->step_glob = strdup(step_glob && *step_glob ? step_glob : TDB_STEP_GLOB_DEFAULT))) {
        rec_free(r);
        return NULL;
    }
    if (rec_kinds(&r->opt, &r->kinds) != 0) {
        fprintf(stderr, "tracedb: unknown kind in '%s' (range, instant, counter, memory)\n", r->opt.kinds);
        rec_free(r);
        return NULL;
    }
    rec_clock_choose();
    const char *ring = getenv("TRACEDB_RING_KIB"); /* a power of two, 64 KiB to 1 GiB */
    long kib = ring ? atol(ring) : 0;
    const char *max = getenv("TRACEDB_STAGE_MAX"); /* bytes, with an optional K, M or G */
    char *unit = NULL;
    double bytes = max ? strtod(max, &unit) : 0;
    if (unit && *unit)
        bytes *= *unit == 'K' || *unit == 'k' ? 1024.0 : *unit == 'M' || *unit == 'm' ? 1048576.0 : *unit == 'G' || *unit == 'g' ? 1073741824.0 : 1;
    r->stage_max = bytes >= 4096 && bytes < 9e18 ? (int64_t)bytes : 0;
    r->ring_bytes = kib >= 64 && kib <= (1L << 20) && !(kib & (kib - 1)) ? (size_t)kib << 10 : RING_BYTES;
    atomic_store(&r->active, r->opt.active > 0 && r->opt.skip_first + r->opt.wait + r->opt.warmup > 0 ? 0 : 1);
    pthread_mutex_init(&r->lock, NULL);
    pthread_mutex_init(&r->ingest, NULL);
    pthread_mutex_init(&r->stage_lock, NULL);
    pthread_mutex_init(&r->drain_lock, NULL);
    pthread_mutex_init(&r->step_lock, NULL);
    pthread_cond_init(&r->wake, NULL);
    r->ing = tdb_ingest_open(path, TDB_OPEN_LIVE, stderr);
    if (!r->ing) {
        rec_free(r);
        return NULL;
    }
    char source[64];
    snprintf(source, sizeof source, "pid %ld", (long)getpid());
    if (tdb_ingest_begin_trace(r->ing, source, "recorder") < 0 || rec_stage_open(r) != 0 ||
        !(r->conv = stage_conv_new(r->ing, getpid()))) {
        tdb_ingest_abort(r->ing);
        unlink(path);
        if (r->stage_fd >= 0)
            unlink(r->stage_path);
        rec_free(r);
        return NULL;
    }
    tdb_ingest_commit(r->ing); /* readers see the trace from the start */
    r->last_commit = rec_now();
    int claimed = atomic_compare_exchange_strong(&rec_global, &expected, r);
    int writer = claimed && pthread_create(&r->writer, NULL, rec_writer_main, r) == 0;
    if (!writer || pthread_create(&r->converter, NULL, rec_converter_main, r) != 0) {
        fprintf(stderr, "tracedb: %s\n", claimed ? "cannot start the recorder's threads" : "a recording is already open in this process");
        if (claimed)
            atomic_store(&rec_global, NULL);
        if (writer) {
            pthread_mutex_lock(&r->lock);
            r->stop = 1;
            pthread_cond_broadcast(&r->wake);
            pthread_mutex_unlock(&r->lock);
            pthread_join(r->writer, NULL);
        }
        tdb_ingest_abort(r->ing);
        unlink(path);
        unlink(r->stage_path);
        rec_free(r);
        return NULL;
    }
    return r;
}

/* A step boundary: ends the step in progress (ProfilerStep#N, a range) and starts the next. With a
 * schedule (PyTorch's skip_first, wait, warmup, active, repeat), events are kept only during active
 * steps, and on_cycle runs after each completed cycle with everything so far committed
 * (recording_steps.c). From the first call on, step ranges (TRACEDB_STEP) end no step. */
void tdb_step(void)
{
    struct tdb_recording *r = atomic_load(&rec_global);
    if (!r)
        return;
    atomic_store(&r->stepped, 1);
    if (r->step_open) {
        rec_put(R_END, 0, NULL, 0, NULL, 0, NULL, 0, rec_stamp(), NULL);
        r->step_open = 0;
    }
    pthread_mutex_lock(&r->step_lock);
    int due = rec_schedule_at(r, ++r->step);
    pthread_mutex_unlock(&r->step_lock);
    if (due)
        rec_cycle_done(r);
    if (atomic_load(&r->active)) {
        char name[48];
        int n = snprintf(name, sizeof name, "ProfilerStep#%lld", (long long)r->step);
        rec_put(R_BEGIN, TDB_KIND_RANGE, name, (size_t)n, NULL, 0, NULL, 0, rec_stamp(), NULL);
        r->step_open = 1;
    }
}

/* Everything recorded so far, staged and converted into the database, and committed. */
int tdb_flush(void)
{
    struct tdb_recording *r = atomic_load(&rec_global);
    return r ? rec_flush(r) : -1; /* (from the process that opened it only) */
}

int64_t tdb_dropped(void)
{
    struct tdb_recording *r = atomic_load(&rec_global);
    int64_t n = 0;
    for (struct rec_thread *t = r ? atomic_load(&r->threads) : NULL; t; t = t->next)
        n += atomic_load(&t->ring.dropped);
    return n;
}

int tdb_recording_stage_events(struct tdb_recording *r, const void *events, size_t bytes)
{
    if (!r || r->owner != getpid()) /* a forked child's copy: its lock may be held forever */
        return -1;
    return rec_stage_chunk(r, STAGE_EVENTS, 0, events, bytes);
}

/* Stops both threads: the writer stages what the rings hold, the converter stops where it is. */
static void rec_stop_threads(struct tdb_recording *r)
{
    pthread_mutex_lock(&r->lock);
    r->stop = r->stop_converting = 1;
    pthread_cond_broadcast(&r->wake);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->writer, NULL);
    pthread_join(r->converter, NULL);
}

/* Records left in the rings when the staging file could take no more: dropped, and counted. */
static int64_t rec_count_unstaged(struct tdb_recording *r)
{
    int64_t n = 0;
    for (struct rec_thread *t = atomic_load(&r->threads); t; t = t->next) {
        if (!t->ring.buf)
            continue;
        size_t tail = atomic_load(&t->ring.tail), head = atomic_load(&t->ring.head);
        while (tail != head) {
            const struct rec *x = (const struct rec *)(t->ring.buf + (tail & (t->ring.size - 1)));
            n += x->type != R_PAD;
            tail += x->type == R_PAD ? REC_PAD_LEN(x) : rec_size(x);
        }
    }
    return n;
}

/* A schedule that saw no step (no tdb_step() call, no step range ended) kept only what its first step
 * would: said, naming the step glob; 1 when the recording then holds nothing (nothing dropped either), and
 * no database is to be written. */
static int rec_unstepped(struct tdb_recording *r, int64_t dropped)
{
    const struct tdb_options *o = &r->opt;
    if (o->active <= 0 || r->step + r->steps_ended > 0)
        return 0;
    int empty = !dropped && stage_conv_events(r->conv) == 0;
    fprintf(stderr, "tracedb: %s: the schedule %d,%d,%d,%d,%d saw no step: no range named like '%s' ended and "
                    "tdb_step() was never called (tracedb record --step, or TRACEDB_STEP, names the ranges that mark a "
                    "step)%s\n", r->path, o->skip_first, o->wait, o->warmup, o->active, o->repeat, r->step_glob,
            empty ? "; nothing was recorded: no database is written" : "; what was recorded is kept");
    return empty;
}

/* The staging file's last chunks: the threads' names as they are now, the end and the drop count. */
static int rec_stage_close(struct tdb_recording *r, int64_t end, int64_t dropped)
{
    size_t bytes = 0;
    int rc = rec_stage_rings(r, &bytes);
    for (struct rec_thread *t = atomic_load(&r->threads); rc == 0 && t; t = t->next)
        if (t->staged)
            rc = rec_stage_thread(r, t); /* renamed since it first recorded? */
    struct stage_close c = {end, dropped};
    return rc == 0 ? rec_stage_chunk(r, STAGE_CLOSE, 0, &c, sizeof c) : -1;
}

int tdb_close(struct tdb_recording *r)
{
    if (!r)
        return -1;
    if (r->owner != getpid()) /* inherited through fork: the parent's to close */
        return -1;
    if (r->step_open) /* the last step ends here */
        rec_put(R_END, 0, NULL, 0, NULL, 0, NULL, 0, rec_stamp(), NULL);
    r->step_open = 0;
    rec_stop_threads(r);
    struct tdb_recording *self = r;
    atomic_compare_exchange_strong(&rec_global, &self, NULL);
    int64_t end = rec_now(); /* after every event of the recording */
    pthread_mutex_lock(&r->stage_lock); /* a CUPTI buffer being staged now completes first */
    pthread_mutex_unlock(&r->stage_lock);
    int64_t dropped = 0;
    for (struct rec_thread *t = atomic_load(&r->threads); t; t = t->next)
        dropped += atomic_load(&t->ring.dropped);
    int rc = rec_stage_close(r, end, dropped);
    int64_t unstaged = 0;
    if (rc != 0 && r->stage_failed) { /* the disk took no more: what it holds becomes rows, the rest is counted */
        unstaged = rec_count_unstaged(r);
        dropped += unstaged;
        rc = 0;
    }
    if (rc == 0)
        rc = rec_convert_staged(r, -1); /* the rest, at the caller's priority */
    int64_t ignored;
    if (rc == 0 && !stage_conv_closed(r->conv, &ignored))
        rc = r->stage_failed ? stage_conv_end(r->conv, end) : -1;
    int discard = rc == 0 && rec_unstepped(r, dropped);
    char extra[160]; /* with a schedule, the steps it saw (tracedb record reads them) */
    int n = snprintf(extra, sizeof extra, "{\"dropped_events\":%lld,\"unstaged_events\":%lld", (long long)dropped,
                     (long long)unstaged);
    snprintf(extra + n, sizeof extra - (size_t)n, r->step_glob ? ",\"steps\":%lld}" : "}",
             (long long)(r->step + r->steps_ended));
    struct tdb_trace_info info = {
        .source_format = "recorder", .base_time_ns = TDB_NULL, .rank = TDB_NULL,
        .extra = extra, .status = dropped ? "partial" : "complete",
        .error = !dropped ? NULL
                 : r->stage_failed ? "events dropped: the staging file could not grow (disk full, or TRACEDB_STAGE_MAX; "
                                     "see extra.dropped_events)"
                                   : "events dropped: a thread's ring was full (see extra.dropped_events)",
        .skipped_events = dropped,
    };
    if (discard) { /* a database of nothing is not written; the staging file holds nothing either */
        tdb_ingest_abort(r->ing);
        char side[4200];
        const char *const ext[] = {"", "-wal", "-shm"};
        for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
            if ((size_t)snprintf(side, sizeof side, "%s%s", r->path, ext[i]) < sizeof side)
                unlink(side);
        unlink(r->stage_path);
        rc = -1;
    } else {
        if (rc == 0)
            rc = tdb_ingest_end_trace(r->ing, &info);
        if (rc == 0) {
            rc = tdb_ingest_finish(r->ing, dropped == 0);
        } else {
            fprintf(stderr, "tracedb: %s: the recording could not be completed; its events are kept in %s "
                            "(tracedb finish %s builds the database from them)\n", r->path, r->stage_path, r->path);
            tdb_ingest_abort(r->ing);
        }
        if (rc == 0)
            unlink(r->stage_path);
    }
    /* threads' rings: a thread may still hold a pointer in its thread-local; it checks rec_global first */
    for (struct rec_thread *t = atomic_load(&r->threads), *next; t; t = next) {
        next = t->next;
        if (t == rec_self) /* other threads see the generation change */
            rec_self = NULL;
        free(t->ring.buf);
        free(t);
    }
    pthread_mutex_destroy(&r->lock);
    pthread_mutex_destroy(&r->ingest);
    pthread_mutex_destroy(&r->stage_lock);
    pthread_mutex_destroy(&r->drain_lock);
    pthread_mutex_destroy(&r->step_lock);
    pthread_cond_destroy(&r->wake);
    rec_free(r);
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
    struct tdb_options o;
    /* options refused: nothing recorded, and the name tracedb record claimed is left to it to say so */
    if (tdb_recording_options(getenv("TRACEDB_LEVEL"), getenv("TRACEDB_KINDS"), getenv("TRACEDB_SCHEDULE"), &o, stderr) != 0)
        return;
    struct stat sb;
    char alt[4096];
    /* tracedb record claimed the name (an empty file) and left a token beside it: the first process of the
     * program to remove the token (unlink succeeds once) takes the name; any other gets a name of its own,
     * even in the moment the winner has removed the empty file and not yet made its database there */
    const char *claimed = getenv("TRACEDB_OUTPUT_CLAIMED");
    char token[4096];
    int own_name;
    if (claimed && strcmp(claimed, out) == 0) {
        own_name = (size_t)snprintf(token, sizeof token, "%s-claim", out) >= sizeof token || unlink(token) != 0;
        if (!own_name && stat(out, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0)
            unlink(out);
    } else { /* one database per process: a child of a recorded program gets its own */
        own_name = stat(out, &sb) == 0;
    }
    if (own_name) {
        snprintf(alt, sizeof alt, "%s.%ld", out, (long)getpid());
        out = alt;
    }
    if (tdb_open_steps(out, &o, getenv("TRACEDB_STEP")))
        atexit(rec_env_close);
}
