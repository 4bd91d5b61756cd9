/* chrome_import.c: streams a Chrome trace JSON file (PyTorch/Kineto, RAF, Furiosa; plain or gzip)
 * into the ingest writer.
 *
 * The file is read in 256 KiB chunks through zlib (which passes plain files through) and tokenized by
 * yajl's callback parser, so memory stays bounded whatever the file size. Each event object is
 * collected in one reusable arena (its fields, and each arg as raw JSON text), and handed to the
 * writer when its closing brace arrives: a file cut anywhere keeps every event that was whole.
 * Numbers arrive as their text, so times convert to integer ns exactly (timeparse.c).
 * Args that become columns (correlation, device, stream, bytes, launch geometry, memory totals)
 * are not stored again in the event's args JSON.
 */
#include "chrome_import.h"
#include "jsonbuf.h"
#include "timeparse.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#define CHUNK (256 * 1024)
#define MAX_REPORTED 5 /* skipped events described one by one; the rest are counted */
#define NO_TOKEN ((size_t)-1)
#define DEFAULT_MAX_STRING ((size_t)64 << 20)

enum field { F_NONE, F_PH, F_CAT, F_NAME, F_PID, F_TID, F_TS, F_DUR, F_ID, F_BP, F_ARGS, F_OTHER };
enum vtype { V_NUMBER, V_STRING, V_BOOL, V_NULL, V_NESTED };

/* Args that may become columns; each arg key is classified once, as it arrives. */
enum arg_slot {
    S_CORRELATION, S_EXTERNAL_ID, S_EXTERNAL_ID_LC, S_DEVICE, S_STREAM, S_BYTES, S_EV_IDX, S_GRID, S_BLOCK,
    S_REGISTERS, S_SHARED_MEM, S_BLOCKS_PER_SM, S_WARPS_PER_SM, S_OCCUPANCY, S_MEM_BYTES, S_ADDR,
    S_TOTAL_ALLOCATED, S_TOTAL_RESERVED, S_DEVICE_TYPE, S_DEVICE_ID, S_NAME, S_LABELS, S_SORT_INDEX,
    S_OPERATOR_INDEX, S_COUNT
};

#define QK(s) {"\"" s "\"", sizeof(s) + 1}
static const struct {
    const char *quoted; /* the key as it stands escaped in the arena, quotes included */
    size_t n;
} arg_slot_keys[S_COUNT] = {
    [S_CORRELATION] = QK("correlation"), [S_EXTERNAL_ID] = QK("External id"), [S_EXTERNAL_ID_LC] = QK("external id"),
    [S_DEVICE] = QK("device"), [S_STREAM] = QK("stream"), [S_BYTES] = QK("bytes"), [S_EV_IDX] = QK("Ev Idx"),
    [S_GRID] = QK("grid"), [S_BLOCK] = QK("block"), [S_REGISTERS] = QK("registers per thread"),
    [S_SHARED_MEM] = QK("shared memory"), [S_BLOCKS_PER_SM] = QK("blocks per SM"),
    [S_WARPS_PER_SM] = QK("warps per SM"), [S_OCCUPANCY] = QK("est. achieved occupancy %"),
    [S_MEM_BYTES] = QK("Bytes"), [S_ADDR] = QK("Addr"), [S_TOTAL_ALLOCATED] = QK("Total Allocated"),
    [S_TOTAL_RESERVED] = QK("Total Reserved"), [S_DEVICE_TYPE] = QK("Device Type"), [S_DEVICE_ID] = QK("Device Id"),
    [S_NAME] = QK("name"), [S_LABELS] = QK("labels"), [S_SORT_INDEX] = QK("sort_index"),
    [S_OPERATOR_INDEX] = QK("operator_index"),
};

/* One arg (or unknown field) of the event being read; offsets into the event arena. */
struct arg {
    size_t key, key_n;   /* the key, JSON-escaped with quotes */
    size_t val, val_n;   /* the value as JSON text */
    size_t str, str_n;   /* for strings: the unescaped text */
    enum vtype type;
    int promoted;        /* became a column */
};

/* A field of the event kept as text in the arena. */
struct text {
    size_t off, n;
    int set, is_text; /* is_text: a JSON string (pid/tid/id may be numbers or strings) */
};

/* The lexical state where yajl stands, for long strings (see feed_long_string). */
enum { SC_BETWEEN, SC_STRING, SC_LITERAL };
struct scan {
    int state;
    int esc;     /* in a string: 0; 1 after a backslash; 1 + hex digits still due after \u */
    int64_t len; /* bytes of the pending string or literal so far */
};

/* A B event waiting for its E, on one track. */
struct open_range {
    int64_t thread_id, start_ns, seq;
    size_t offset; /* of the B event in the file */
    int kind;
    struct buf name, cat, args;
    int has_cat;
};

struct chrome {
    struct tdb_ingest *ing;
    const char *file;
    FILE *err;
    yajl_handle h;
    size_t chunk_base;  /* uncompressed offset of the current chunk */
    int depth;          /* containers open */
    int shape;          /* 0 unknown, 1 bare array, 2 object */
    int events_depth;   /* depth of the events array, 0 when outside it */
    int top_field;      /* in an object: the pending top-level key is: 0 other, 1 traceEvents */
    struct buf top_key; /* the pending top-level key (unescaped) */

    /* capture of a nested value as JSON text: active while cap_depth > 0 */
    struct jw cap;
    int cap_depth;     /* the depth at which the captured value closes */
    struct buf *cap_buf;
    struct buf top_value; /* a captured top-level value, or a swallowed malformed one */

    /* the event being read */
    struct buf arena;
    struct arg *args;
    size_t nargs, args_cap;
    int slot_arg[S_COUNT]; /* index in args of each column-worthy arg, or -1 */
    struct text ph, cat, name, pid, tid, ts, dur, id, bp;
    enum field field;
    int in_args;       /* inside the args object */
    size_t event_offset;
    int event_bad;     /* a field had a wrong type */
    char bad_reason[160];

    /* top-level facts */
    struct buf extra;  /* JSON object of other top-level keys */
    struct jw extra_w;
    struct buf devprops, distinfo, trace_name;
    int64_t base_time_ns;

    /* B/E matching */
    struct open_range *open;
    size_t nopen, open_cap;

    /* long strings (see feed_long_string) */
    size_t close_end;     /* offset in the chunk being parsed just past the last '}' or ']'; NO_TOKEN before one */
    struct buf longbuf;   /* a long string's bytes read ahead, fed to yajl in one call */
    struct scan scan;     /* the lexical state at the end of what yajl has consumed */
    size_t chunk_size;    /* bytes read at a time: CHUNK, less for a small file */
    int64_t oversize;     /* a string longer than max_string was cut: its length (for the message), or 0 */
    int top_skip;         /* the current top-level value is dropped (an oversize string in it) */
    size_t max_string;

    /* anomalies: facts of real traces, kept and flagged (or, with strict, skipped as errors) */
    int strict;
    int64_t *thread_last; /* per track id: the latest time seen on it (where a B never ended ends) */
    size_t thread_last_n;

    /* what the document is, when it holds no trace */
    const char *top_scalar;  /* the document is a bare scalar of this type */
    const char *events_type; /* "traceEvents" is this, not an array */
    int saw_events;          /* an events array was found */
    struct buf top_keys;     /* the first top-level keys, for the message */

    struct buf out_args; /* the args JSON handed to the writer */
    struct buf series;   /* a counter series name */
    struct tdb_import_result *res;
    int db_error;
};

/* ---------------------------------------------------------------- small helpers */

static size_t chrome_offset(struct chrome *c)
{
    return c->chunk_base + yajl_get_bytes_consumed(c->h);
}

static void chrome_skip(struct chrome *c, size_t offset, const char *reason)
{
    c->res->skipped++;
    if (c->res->skipped <= MAX_REPORTED)
        fprintf(c->err, "tracedb: %s: event at byte %zu skipped: %s\n", c->file, offset, reason);
    if (!c->res->first_error[0])
        snprintf(c->res->first_error, sizeof c->res->first_error, "byte %zu: %s", offset, reason);
}

static const char *const anomaly_what[TDB_ANOMALY_COUNT] = {
    [TDB_ANOMALY_NEGATIVE_DUR] = "had a negative \"dur\": kept with dur 0",
    [TDB_ANOMALY_END_WITHOUT_BEGIN] = "were E events with no open B on their thread: dropped (nothing to keep)",
    [TDB_ANOMALY_NEVER_ENDED] = "were B events never ended: kept, ending at their thread's last timestamp",
    [TDB_ANOMALY_END_BEFORE_BEGIN] = "were E events before their B: the range kept with dur 0",
};
static const char *const anomaly_flag[TDB_ANOMALY_COUNT] = {
    [TDB_ANOMALY_NEGATIVE_DUR] = "negative dur",
    [TDB_ANOMALY_END_WITHOUT_BEGIN] = "end without begin",
    [TDB_ANOMALY_NEVER_ENDED] = "never ended",
    [TDB_ANOMALY_END_BEFORE_BEGIN] = "ends before it begins",
};
static const char *const anomaly_error[TDB_ANOMALY_COUNT] = {
    [TDB_ANOMALY_NEGATIVE_DUR] = "negative \"dur\"",
    [TDB_ANOMALY_END_WITHOUT_BEGIN] = "E event without a matching B event on its thread",
    [TDB_ANOMALY_NEVER_ENDED] = "B event never ended (no matching E)",
    [TDB_ANOMALY_END_BEFORE_BEGIN] = "E event ends before its B event begins",
};

/* A fact of real traces (clock skew, a profiler stopped mid-range), not damage: counted, and kept
 * flagged. With --strict it is an error instead: the event is skipped; returns 1 then. */
static int chrome_anomaly(struct chrome *c, enum tdb_anomaly a, size_t offset)
{
    if (c->strict) {
        chrome_skip(c, offset, anomaly_error[a]);
        return 1;
    }
    if (c->res->anomalies[a]++ == 0)
        c->res->anomaly_offset[a] = offset;
    return 0;
}

/* Adds "tracedb.anomaly" to the args JSON in out_args. */
static struct tdb_str args_flag(struct chrome *c, enum tdb_anomaly a)
{
    struct buf *b = &c->out_args;
    if (b->n >= 2 && b->p[b->n - 1] == '}') {
        b->n--;
        if (b->n > 1)
            buf_addc(b, ',');
        buf_add(b, "\"tracedb.anomaly\":", 18);
        buf_add_json_string(b, anomaly_flag[a], strlen(anomaly_flag[a]));
        buf_addc(b, '}');
    }
    return (struct tdb_str){b->p, b->n};
}

/* The latest time seen on a track. */
static void thread_seen(struct chrome *c, int64_t thread, int64_t t)
{
    if ((size_t)thread >= c->thread_last_n) {
        size_t n = c->thread_last_n ? c->thread_last_n : 64;
        while (n <= (size_t)thread)
            n *= 2;
        int64_t *p = realloc(c->thread_last, n * sizeof *p);
        if (!p)
            return;
        for (size_t i = c->thread_last_n; i < n; i++)
            p[i] = INT64_MIN;
        c->thread_last = p, c->thread_last_n = n;
    }
    if (t > c->thread_last[thread])
        c->thread_last[thread] = t;
}

static int arena_text(struct chrome *c, struct text *t, const char *s, size_t n, int is_text)
{
    t->off = c->arena.n;
    t->n = n;
    t->set = 1;
    t->is_text = is_text;
    return buf_add(&c->arena, s, n);
}

static struct tdb_str text_str(const struct chrome *c, const struct text *t)
{
    struct tdb_str s = {t->set ? c->arena.p + t->off : NULL, t->set ? t->n : 0};
    return s;
}

static int text_is(const struct chrome *c, const struct text *t, const char *lit)
{
    size_t n = strlen(lit);
    return t->set && t->n == n && memcmp(c->arena.p + t->off, lit, n) == 0;
}

static int ci_equal(const char *a, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    if (n != m)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char x = a[i];
        if (x >= 'A' && x <= 'Z')
            x = (char)(x - 'A' + 'a');
        if (x != lit[i])
            return 0;
    }
    return 1;
}

static void event_reset(struct chrome *c)
{
    c->arena.n = 0;
    c->nargs = 0;
    memset(&c->ph, 0, sizeof c->ph);
    c->cat = c->name = c->pid = c->tid = c->ts = c->dur = c->id = c->bp = c->ph;
    c->field = F_NONE;
    c->in_args = 0;
    c->event_bad = 0;
    memset(c->slot_arg, 0xff, sizeof c->slot_arg);
}

static void event_bad(struct chrome *c, const char *fmt, const char *what)
{
    if (!c->event_bad)
        snprintf(c->bad_reason, sizeof c->bad_reason, fmt, what);
    c->event_bad = 1;
}

/* ---------------------------------------------------------------- args */

static struct arg *arg_new(struct chrome *c)
{
    if (c->nargs == c->args_cap) {
        size_t ncap = c->args_cap ? c->args_cap * 2 : 32;
        struct arg *na = realloc(c->args, ncap * sizeof *na);
        if (!na)
            return NULL;
        c->args = na, c->args_cap = ncap;
    }
    struct arg *a = &c->args[c->nargs++];
    memset(a, 0, sizeof *a);
    return a;
}

/* Starts an arg (or unknown event field) with this key. */
static int arg_key(struct chrome *c, const unsigned char *k, size_t n)
{
    struct arg *a = arg_new(c);
    if (!a)
        return 0;
    a->key = c->arena.n;
    if (buf_add_json_string(&c->arena, (const char *)k, n) != 0)
        return 0;
    a->key_n = c->arena.n - a->key;
    a->type = V_NULL;
    for (int i = 0; i < S_COUNT; i++) { /* on the raw key: its length and first byte rule most out */
        if (arg_slot_keys[i].n == n + 2 && arg_slot_keys[i].quoted[1] == (char)k[0] &&
            memcmp(arg_slot_keys[i].quoted + 1, k, n) == 0) {
            c->slot_arg[i] = (int)c->nargs - 1;
            break;
        }
    }
    return 1;
}

static int arg_scalar(struct chrome *c, enum vtype type, const char *text, size_t n, const char *str, size_t sn)
{
    if (!c->nargs)
        return 1;
    struct arg *a = &c->args[c->nargs - 1];
    a->type = type;
    a->val = c->arena.n;
    if (type == V_STRING) {
        if (buf_add_json_string(&c->arena, str, sn) != 0)
            return 0;
        a->val_n = c->arena.n - a->val;
        a->str = c->arena.n;
        a->str_n = sn;
        return buf_add(&c->arena, str, sn) == 0;
    }
    a->val_n = n;
    return buf_add(&c->arena, text, n) == 0;
}

static struct arg *arg_slot(struct chrome *c, enum arg_slot slot)
{
    int i = c->slot_arg[slot];
    return i >= 0 ? &c->args[i] : NULL;
}

/* The integer value of a numeric arg, marking it promoted; TDB_NULL when absent or not integral. */
static int64_t arg_int(struct chrome *c, enum arg_slot slot)
{
    struct arg *a = arg_slot(c, slot);
    int64_t v;
    if (!a || a->type != V_NUMBER || tdb_parse_int(c->arena.p + a->val, a->val_n, &v) != 0)
        return TDB_NULL;
    a->promoted = 1;
    return v;
}

static double arg_real(struct chrome *c, enum arg_slot slot)
{
    struct arg *a = arg_slot(c, slot);
    if (!a || a->type != V_NUMBER || a->val_n >= 64)
        return NAN;
    char tmp[64];
    memcpy(tmp, c->arena.p + a->val, a->val_n);
    tmp[a->val_n] = 0;
    a->promoted = 1;
    return strtod(tmp, NULL);
}

/* Reads "[x,y,z]" (as the arena holds nested values: compact) into v; promotes the arg when it fits. */
static void arg_dim3(struct chrome *c, enum arg_slot slot, int64_t v[3])
{
    v[0] = v[1] = v[2] = TDB_NULL;
    struct arg *a = arg_slot(c, slot);
    if (!a || a->type != V_NESTED || a->val_n < 7)
        return;
    const char *p = c->arena.p + a->val, *end = p + a->val_n;
    if (*p++ != '[')
        return;
    int64_t out[3];
    for (int k = 0; k < 3; k++) {
        const char *q = p;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
        if (q == p || q >= end || *q != (k < 2 ? ',' : ']') || tdb_parse_int(p, (size_t)(q - p), &out[k]) != 0)
            return;
        p = q + 1;
    }
    if (p != end)
        return;
    v[0] = out[0], v[1] = out[1], v[2] = out[2];
    a->promoted = 1;
}

/* The args JSON of what was not promoted (and not dropped). */
static struct tdb_str args_json(struct chrome *c)
{
    c->out_args.n = 0;
    buf_addc(&c->out_args, '{');
    int first = 1;
    for (size_t i = 0; i < c->nargs; i++) {
        const struct arg *a = &c->args[i];
        if (a->promoted)
            continue;
        if (!first)
            buf_addc(&c->out_args, ',');
        first = 0;
        buf_add(&c->out_args, c->arena.p + a->key, a->key_n);
        buf_addc(&c->out_args, ':');
        buf_add(&c->out_args, c->arena.p + a->val, a->val_n);
    }
    buf_addc(&c->out_args, '}');
    struct tdb_str s = {c->out_args.p, c->out_args.n};
    return s;
}

/* ---------------------------------------------------------------- kinds */

static int kind_of(struct chrome *c, char ph)
{
    if (!c->cat.set || c->cat.n == 0) {
        if (ph == 'i' || ph == 'I')
            return TDB_KIND_INSTANT;
        if (c->name.set && c->name.n > 13 && memcmp(c->arena.p + c->name.off, "ProfilerStep#", 13) == 0)
            return TDB_KIND_RANGE; /* the profiler's own step ranges, in the legacy export too */
        return TDB_KIND_OP; /* PyTorch's legacy export writes operators with no category */
    }
    static const struct {
        const char *cat;
        int kind;
    } cats[] = {
        {"cpu_op", TDB_KIND_OP},           {"operator", TDB_KIND_OP},
        {"user_annotation", TDB_KIND_RANGE}, {"gpu_user_annotation", TDB_KIND_GPU_RANGE},
        {"python_function", TDB_KIND_PYTHON}, {"cuda_runtime", TDB_KIND_RUNTIME},
        {"runtime", TDB_KIND_RUNTIME},     {"cuda_driver", TDB_KIND_DRIVER},
        {"driver", TDB_KIND_DRIVER},       {"kernel", TDB_KIND_KERNEL},
        {"gpu_memcpy", TDB_KIND_MEMCPY},   {"memcpy", TDB_KIND_MEMCPY},
        {"gpu_memset", TDB_KIND_MEMSET},   {"memset", TDB_KIND_MEMSET},
        {"cuda_sync", TDB_KIND_SYNC},      {"trace", TDB_KIND_TRACE},
        {"cpu_instant_event", TDB_KIND_INSTANT},
    };
    const char *cs = c->arena.p + c->cat.off;
    for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++)
        if (ci_equal(cs, c->cat.n, cats[i].cat))
            return cats[i].kind;
    if (ph == 'i' || ph == 'I')
        return TDB_KIND_INSTANT;
    if (ph == 'B' || ph == 'E')
        return TDB_KIND_OP; /* RAF: B/E operator spans whose category is the stream name */
    if (c->slot_arg[S_OPERATOR_INDEX] >= 0)
        return TDB_KIND_OP; /* Furiosa: operators carry operator_index, whatever their category */
    return tdb_ingest_custom_kind(c->ing, text_str(c, &c->cat));
}

/* ---------------------------------------------------------------- event completion */

static int64_t chrome_thread(struct chrome *c)
{
    struct text *tid = c->tid.set ? &c->tid : &c->pid; /* a missing tid defaults to the pid */
    static const char zero[] = "0";
    struct tdb_str p = c->pid.set ? text_str(c, &c->pid) : (struct tdb_str){zero, 1};
    struct tdb_str t = tid->set ? text_str(c, tid) : (struct tdb_str){zero, 1};
    return tdb_ingest_thread(c->ing, c->pid.is_text, p, tid->is_text, t);
}

static int chrome_time(struct chrome *c, const struct text *t, const char *what, int64_t *out)
{
    if (!t->set) {
        event_bad(c, "no %s", what);
        return -1;
    }
    int rc = tdb_us_to_ns(c->arena.p + t->off, t->n, out);
    if (rc == 0 && (*out > TDB_TIME_MAX || *out < -TDB_TIME_MAX))
        rc = -2; /* past 146 years either way: not a time (see TDB_TIME_MAX) */
    if (rc == -2)
        event_bad(c, "%s out of range", what);
    else if (rc != 0)
        event_bad(c, "%s is not a number", what);
    return rc;
}

static int chrome_metadata(struct chrome *c)
{
    int64_t thread = chrome_thread(c);
    if (thread < 0)
        return -1;
    char field[32];
    if (c->name.n >= sizeof field)
        return 0;
    memcpy(field, c->arena.p + c->name.off, c->name.n);
    field[c->name.n] = 0;
    const struct arg *a = arg_slot(c, strcmp(field, "process_labels") == 0 ? S_LABELS
                                      : strstr(field, "sort_index")        ? S_SORT_INDEX
                                                                           : S_NAME);
    if (!a)
        return 0;
    struct tdb_str text = {NULL, 0};
    int64_t num = TDB_NULL;
    if (a->type == V_STRING)
        text = (struct tdb_str){c->arena.p + a->str, a->str_n};
    else if (a->type == V_NUMBER)
        tdb_parse_int(c->arena.p + a->val, a->val_n, &num);
    return tdb_ingest_thread_meta(c->ing, thread, field, text, num);
}

static int chrome_counter(struct chrome *c, int64_t thread, int64_t ts)
{
    struct buf name = c->series; /* reused: no allocation per event */
    int rc = 0;
    for (size_t i = 0; i < c->nargs && rc == 0; i++) {
        const struct arg *a = &c->args[i];
        if (a->type != V_NUMBER)
            continue;
        name.n = 0;
        /* series name: "<event name>.<key>" (key unquoted; keys with escapes keep them) */
        buf_add(&name, c->arena.p + c->name.off, c->name.n);
        buf_addc(&name, '.');
        buf_add(&name, c->arena.p + a->key + 1, a->key_n - 2);
        char tmp[64];
        size_t n = a->val_n < sizeof tmp - 1 ? a->val_n : sizeof tmp - 1;
        memcpy(tmp, c->arena.p + a->val, n);
        tmp[n] = 0;
        rc = tdb_ingest_counter(c->ing, thread, (struct tdb_str){name.p, name.n}, ts, strtod(tmp, NULL));
    }
    c->series = name;
    return rc;
}

/* Fills the promoted columns of ev from the args, by kind. */
static void chrome_promote(struct chrome *c, struct tdb_event *ev)
{
    ev->correlation = arg_int(c, S_CORRELATION);
    ev->external_id = arg_int(c, S_EXTERNAL_ID);
    if (ev->external_id == TDB_NULL)
        ev->external_id = arg_int(c, S_EXTERNAL_ID_LC);
    ev->device = arg_int(c, S_DEVICE);
    ev->stream = arg_int(c, S_STREAM);
    ev->bytes = arg_int(c, S_BYTES);
    struct arg *evidx = arg_slot(c, S_EV_IDX);
    if (evidx) /* Kineto's running event number: the file order, which the event id keeps */
        evidx->promoted = 1;
    if (ev->kind == TDB_KIND_KERNEL) {
        arg_dim3(c, S_GRID, ev->grid);
        arg_dim3(c, S_BLOCK, ev->block);
        ev->registers = arg_int(c, S_REGISTERS);
        ev->shared_mem = arg_int(c, S_SHARED_MEM);
        ev->blocks_per_sm = arg_real(c, S_BLOCKS_PER_SM);
        ev->warps_per_sm = arg_real(c, S_WARPS_PER_SM);
        ev->occupancy_pct = arg_real(c, S_OCCUPANCY);
        ev->has_launch = ev->grid[0] != TDB_NULL || ev->block[0] != TDB_NULL || ev->registers != TDB_NULL;
    }
    if (ev->kind == TDB_KIND_MEMORY) {
        ev->bytes = arg_int(c, S_MEM_BYTES);
        ev->addr = arg_int(c, S_ADDR);
        ev->total_allocated = arg_int(c, S_TOTAL_ALLOCATED);
        ev->total_reserved = arg_int(c, S_TOTAL_RESERVED);
        ev->device_type = arg_int(c, S_DEVICE_TYPE);
        ev->device = arg_int(c, S_DEVICE_ID);
    }
}

static int open_push(struct chrome *c, int64_t thread, int64_t start, int kind)
{
    if (c->nopen == c->open_cap) {
        size_t ncap = c->open_cap ? c->open_cap * 2 : 16;
        struct open_range *n = realloc(c->open, ncap * sizeof *n);
        if (!n)
            return -1;
        memset(n + c->open_cap, 0, (ncap - c->open_cap) * sizeof *n);
        c->open = n, c->open_cap = ncap;
    }
    struct open_range *o = &c->open[c->nopen++];
    o->thread_id = thread, o->start_ns = start, o->kind = kind, o->offset = c->event_offset;
    o->name.n = o->cat.n = o->args.n = 0;
    o->has_cat = c->cat.set;
    struct tdb_str a = args_json(c);
    if (buf_add(&o->name, c->arena.p + c->name.off, c->name.n) != 0 ||
        buf_add(&o->cat, c->arena.p + c->cat.off, c->cat.n) != 0 || buf_add(&o->args, a.p, a.n) != 0)
        return -1;
    return 0;
}

static int range_write(struct chrome *c, struct open_range *o, int64_t end, enum tdb_anomaly flag);

/* The E event: closes the innermost open B on its track. */
static int open_pop(struct chrome *c, int64_t thread, int64_t end)
{
    for (size_t i = c->nopen; i-- > 0;) {
        struct open_range *o = &c->open[i];
        if (o->thread_id != thread)
            continue;
        enum tdb_anomaly flag = TDB_ANOMALY_COUNT;
        if (end < o->start_ns) {
            if (chrome_anomaly(c, TDB_ANOMALY_END_BEFORE_BEGIN, c->event_offset))
                return 0;
            end = o->start_ns;
            flag = TDB_ANOMALY_END_BEFORE_BEGIN;
        }
        if (range_write(c, o, end, flag) != 0)
            return -1;
        /* remove frame i, keeping the order of the rest */
        struct open_range keep = *o;
        memmove(&c->open[i], &c->open[i + 1], (c->nopen - i - 1) * sizeof *o);
        c->open[--c->nopen] = keep;
        return 0;
    }
    chrome_anomaly(c, TDB_ANOMALY_END_WITHOUT_BEGIN, c->event_offset);
    return 0;
}

/* Writes the range of B event o, ending at end; flag: an anomaly to note in its args, or COUNT. */
static int range_write(struct chrome *c, struct open_range *o, int64_t end, enum tdb_anomaly flag)
{
    struct tdb_event ev;
    tdb_event_init(&ev);
    ev.kind = o->kind;
    ev.name = (struct tdb_str){o->name.p ? o->name.p : "", o->name.n};
    ev.cat = o->has_cat ? (struct tdb_str){o->cat.p ? o->cat.p : "", o->cat.n} : (struct tdb_str){NULL, 0};
    ev.thread_id = o->thread_id;
    ev.start_ns = o->start_ns;
    ev.dur_ns = end - o->start_ns;
    ev.args = (struct tdb_str){o->args.p, o->args.n};
    if (flag != TDB_ANOMALY_COUNT) {
        c->out_args.n = 0;
        buf_add(&c->out_args, o->args.p, o->args.n);
        ev.args = args_flag(c, flag);
    }
    if (tdb_ingest_event(c->ing, &ev) < 0)
        return -1;
    c->res->events++;
    return 0;
}

/* The closing brace of an event: validate, convert, write. -1 only for database errors. */
static int chrome_event_end(struct chrome *c)
{
    if (c->event_bad) {
        chrome_skip(c, c->event_offset, c->bad_reason);
        return 0;
    }
    if (!c->ph.set || c->ph.n == 0) {
        chrome_skip(c, c->event_offset, "no \"ph\" (phase)");
        return 0;
    }
    char ph = c->arena.p[c->ph.off];
    if (ph == 'M')
        return chrome_metadata(c);

    int64_t ts = 0, dur = 0;
    if (chrome_time(c, &c->ts, "\"ts\"", &ts) != 0) {
        chrome_skip(c, c->event_offset, c->bad_reason);
        return 0;
    }
    int64_t thread = chrome_thread(c);
    if (thread < 0)
        return -1;
    thread_seen(c, thread, ts);
    enum tdb_anomaly flag = TDB_ANOMALY_COUNT;

    switch (ph) {
    case 'X':
        if (chrome_time(c, &c->dur, "\"dur\"", &dur) != 0) {
            chrome_skip(c, c->event_offset, c->bad_reason);
            return 0;
        }
        if (dur < 0) {
            if (chrome_anomaly(c, TDB_ANOMALY_NEGATIVE_DUR, c->event_offset))
                return 0;
            dur = 0;
            flag = TDB_ANOMALY_NEGATIVE_DUR;
        }
        if (ts > TDB_TIME_MAX - dur) {
            chrome_skip(c, c->event_offset, "\"ts\" + \"dur\" out of range");
            return 0;
        }
        thread_seen(c, thread, ts + dur);
        break;
    case 'i':
    case 'I':
    case 'n':
        break;
    case 'B': {
        int kind = kind_of(c, ph);
        if (kind < 0)
            return -1;
        return open_push(c, thread, ts, kind);
    }
    case 'E':
        return open_pop(c, thread, ts);
    case 'C':
        return chrome_counter(c, thread, ts);
    case 's':
    case 't':
    case 'f': {
        int64_t id = TDB_NULL;
        if (c->id.set && tdb_parse_int(c->arena.p + c->id.off, c->id.n, &id) != 0) {
            char tmp[32];
            size_t n = c->id.n < sizeof tmp - 1 ? c->id.n : sizeof tmp - 1;
            memcpy(tmp, c->arena.p + c->id.off, n);
            tmp[n] = 0;
            char *end;
            errno = 0;
            unsigned long long v = strtoull(tmp, &end, 0); /* "0x1f" ids */
            id = (*end == 0 && errno == 0 && n > 0) ? (int64_t)v : TDB_NULL;
        }
        if (tdb_ingest_flow(c->ing, thread, id, text_str(c, &c->cat), ph, ts, text_is(c, &c->bp, "e")) != 0)
            return -1;
        c->res->flows++;
        return 0;
    }
    case 'b':
    case 'e':
        break; /* async halves: kept as instants of kind async */
    default: {
        char reason[64];
        if (ph > 0x20 && ph < 0x7f)
            snprintf(reason, sizeof reason, "unknown phase \"%c\"", ph);
        else /* never a raw control byte on the terminal */
            snprintf(reason, sizeof reason, "unknown phase (byte 0x%02x)", (unsigned char)ph);
        chrome_skip(c, c->event_offset, reason);
        return 0;
    }
    }

    struct tdb_event ev;
    tdb_event_init(&ev);
    if (ph == 'b' || ph == 'e' || ph == 'n')
        ev.kind = TDB_KIND_ASYNC;
    else
        ev.kind = kind_of(c, ph);
    if (ev.kind < 0)
        return -1;
    if (ev.kind == TDB_KIND_INSTANT && text_is(c, &c->name, "[memory]"))
        ev.kind = TDB_KIND_MEMORY;
    ev.name = c->name.set ? text_str(c, &c->name) : (struct tdb_str){"", 0};
    ev.cat = text_str(c, &c->cat);
    ev.thread_id = thread;
    ev.start_ns = ts;
    ev.dur_ns = dur;
    chrome_promote(c, &ev);
    ev.args = args_json(c);
    if (flag != TDB_ANOMALY_COUNT)
        ev.args = args_flag(c, flag);
    if (tdb_ingest_event(c->ing, &ev) < 0)
        return -1;
    c->res->events++;
    return 0;
}

/* ---------------------------------------------------------------- top level */

/* Called when a captured top-level value is complete. */
static int top_value_done(struct chrome *c, struct buf *value)
{
    if (c->top_skip)
        return 1;
    const char *k = c->top_key.p;
    size_t kn = c->top_key.n;
    if (kn == 16 && memcmp(k, "deviceProperties", 16) == 0) {
        c->devprops.n = 0;
        return buf_add(&c->devprops, value->p, value->n) == 0;
    }
    if (kn == 15 && memcmp(k, "distributedInfo", 15) == 0) {
        c->distinfo.n = 0;
        return buf_add(&c->distinfo, value->p, value->n) == 0;
    }
    jw_key(&c->extra_w, k, kn);
    jw_raw(&c->extra_w, value->p, value->n);
    return 1;
}

static int top_scalar(struct chrome *c, enum vtype type, const char *text, size_t n)
{
    if (c->top_skip)
        return 1;
    const char *k = c->top_key.p;
    size_t kn = c->top_key.n;
    if (kn == 19 && memcmp(k, "baseTimeNanoseconds", 19) == 0 && type == V_NUMBER) {
        int64_t v;
        if (tdb_parse_int(text, n, &v) == 0)
            c->base_time_ns = v;
    }
    if (kn == 9 && memcmp(k, "traceName", 9) == 0 && type == V_STRING) {
        c->trace_name.n = 0;
        buf_add(&c->trace_name, text, n);
    }
    jw_key(&c->extra_w, k, kn);
    if (type == V_STRING)
        jw_string(&c->extra_w, text, n);
    else
        jw_raw(&c->extra_w, text, n);
    return 1;
}

/* ---------------------------------------------------------------- yajl callbacks */

/* Routes a scalar to wherever the parser stands. */
static int on_scalar(struct chrome *c, enum vtype type, const char *text, size_t n)
{
    if (c->cap_depth) {
        if (type == V_STRING)
            return jw_string(&c->cap, text, n) == 0;
        return jw_raw(&c->cap, text, n) == 0;
    }
    int event_depth = c->events_depth ? c->events_depth + 1 : -1;
    if (c->depth == event_depth + 1 && c->in_args)
        return arg_scalar(c, type, text, n, text, n);
    if (c->depth == event_depth) {
        struct text *t = NULL;
        int is_text = type == V_STRING;
        switch (c->field) {
        case F_PH: t = &c->ph; break;
        case F_CAT: t = &c->cat; break;
        case F_NAME: t = &c->name; break;
        case F_PID: t = &c->pid; break;
        case F_TID: t = &c->tid; break;
        case F_TS: t = &c->ts; break;
        case F_DUR: t = &c->dur; break;
        case F_ID: t = &c->id; break;
        case F_BP: t = &c->bp; break;
        case F_OTHER: return arg_scalar(c, type, text, n, text, n);
        case F_ARGS: event_bad(c, "%s is not an object", "\"args\""); return 1;
        default: return 1;
        }
        if (type == V_NULL || type == V_BOOL || type == V_NESTED) {
            if (c->field == F_PID || c->field == F_TID || c->field == F_CAT || c->field == F_ID)
                return 1; /* null pid/tid/cat: treated as absent */
            event_bad(c, "field has the wrong type (%s)", type == V_NULL ? "null" : "boolean");
            return 1;
        }
        if ((c->field == F_TS || c->field == F_DUR) && type == V_STRING) {
            event_bad(c, "%s is a string, not a number", c->field == F_TS ? "\"ts\"" : "\"dur\"");
            return 1;
        }
        if ((c->field == F_PH || c->field == F_NAME || c->field == F_CAT || c->field == F_BP) && type != V_STRING) {
            if (c->field == F_NAME) { /* a numeric name: keep its text */
                return arena_text(c, t, text, n, 0) == 0;
            }
            event_bad(c, "%s is not a string", c->field == F_PH ? "\"ph\"" : "\"cat\"");
            return 1;
        }
        return arena_text(c, t, text, n, is_text) == 0;
    }
    if (c->shape == 2 && c->depth == 1) {
        if (c->top_field == 1)
            c->events_type = type == V_NULL ? "null" : type == V_STRING ? "a string" : type == V_BOOL ? "a boolean"
                                                                                                 : "a number";
        return top_scalar(c, type, text, n);
    }
    if (c->depth == 0) {
        c->top_scalar = type == V_NULL ? "JSON null" : type == V_STRING ? "JSON string" : type == V_BOOL ? "JSON boolean"
                                                                                                    : "JSON number";
        return 1;
    }
    if (c->events_depth && c->depth == c->events_depth) {
        chrome_skip(c, chrome_offset(c), "an element of the events array is not an object");
        return 1;
    }
    return 1;
}

/* A closing bracket notes where it ends: the scan for long strings (scan_bytes) starts there. */
#define MARK_CLOSE(ctx) (((struct chrome *)(ctx))->close_end = yajl_get_bytes_consumed(((struct chrome *)(ctx))->h))

/* A string cut at max_string arrives (its first bytes only): the event, or top-level value, holding
 * it is dropped and reported. 1 when the string is to be ignored. */
static int oversize_string(struct chrome *c, int is_key)
{
    if (!c->oversize)
        return 0;
    char why[96];
    snprintf(why, sizeof why, "a string of %lld bytes is longer than the limit (%zu bytes, --max-string)",
             (long long)c->oversize, c->max_string);
    c->oversize = 0;
    int event_depth = c->events_depth ? c->events_depth + 1 : -1;
    if (event_depth > 0 && c->depth >= event_depth) {
        event_bad(c, "%s", why);
        return 0;
    }
    if (c->events_depth && c->depth == c->events_depth)
        return 0; /* an element of the events array: skipped as not an object */
    fprintf(c->err, "tracedb: %s: top-level value near byte %zu dropped: %s\n", c->file, chrome_offset(c), why);
    c->top_skip = is_key && c->shape == 2 && c->depth == 1 ? 2 : 1; /* 2: the value of this key goes */
    return 1;
}

static int cb_null(void *ctx)
{
    return on_scalar(ctx, V_NULL, "null", 4);
}

static int cb_boolean(void *ctx, int v)
{
    return on_scalar(ctx, V_BOOL, v ? "true" : "false", v ? 4 : 5);
}

static int cb_number(void *ctx, const char *s, size_t n)
{
    return on_scalar(ctx, V_NUMBER, s, n);
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
    struct chrome *c = ctx;
    if (__builtin_expect(n > c->max_string || c->oversize, 0)) {
        if (!c->oversize)
            c->oversize = (int64_t)n;
        oversize_string(c, 0);
    }
    return on_scalar(ctx, V_STRING, (const char *)s, n);
}

/* Starts capturing the nested value that opens now into b. */
static int capture_start(struct chrome *c, struct buf *b, char bracket)
{
    c->cap_buf = b;
    jw_init(&c->cap, b);
    c->cap_depth = c->depth; /* depth after the open */
    return jw_open(&c->cap, bracket) == 0;
}

static int on_open(struct chrome *c, char bracket)
{
    c->depth++;
    if (c->cap_depth)
        return jw_open(&c->cap, bracket) == 0;
    if (c->depth == 1) {
        c->shape = bracket == '[' ? 1 : 2;
        if (c->shape == 1)
            c->events_depth = 1, c->saw_events = 1;
        return 1;
    }
    if (c->shape == 2 && c->depth == 2) {
        if (c->top_field == 1 && bracket == '[') {
            c->events_depth = 2, c->saw_events = 1;
            return 1;
        }
        if (c->top_field == 1)
            c->events_type = "an object";
        c->top_value.n = 0;
        return capture_start(c, &c->top_value, bracket);
    }
    int event_depth = c->events_depth ? c->events_depth + 1 : -1;
    if (c->depth == event_depth) {
        if (bracket != '{') {
            chrome_skip(c, chrome_offset(c), "an element of the events array is not an object");
            c->top_value.n = 0;
            return capture_start(c, &c->top_value, bracket); /* swallow it */
        }
        event_reset(c);
        c->event_offset = chrome_offset(c) - 1;
        return 1;
    }
    if (c->depth == event_depth + 1) {
        if (c->field == F_ARGS && bracket == '{') {
            c->in_args = 1;
            return 1;
        }
        if (c->field == F_OTHER) {
            c->args[c->nargs - 1].type = V_NESTED;
            c->args[c->nargs - 1].val = c->arena.n;
            return capture_start(c, &c->arena, bracket);
        }
        if (c->field != F_NONE)
            event_bad(c, "a field that must be a scalar is %s", bracket == '[' ? "an array" : "an object");
        c->top_value.n = 0;
        return capture_start(c, &c->top_value, bracket); /* swallow it */
    }
    if (c->depth == event_depth + 2 && c->in_args && c->nargs) {
        struct arg *a = &c->args[c->nargs - 1];
        a->type = V_NESTED;
        a->val = c->arena.n;
        return capture_start(c, &c->arena, bracket);
    }
    return 1;
}

static int on_close(struct chrome *c, char bracket)
{
    int rc = 1;
    if (c->cap_depth) {
        if (jw_close(&c->cap, bracket) != 0)
            return 0;
        if (c->depth == c->cap_depth) {
            c->cap_depth = 0;
            if (c->cap_buf == &c->arena) {
                struct arg *a = &c->args[c->nargs - 1];
                a->val_n = c->arena.n - a->val;
            } else if (c->shape == 2 && c->depth == 2 && c->cap_buf == &c->top_value) {
                rc = top_value_done(c, &c->top_value);
            }
        }
        c->depth--;
        return rc;
    }
    int event_depth = c->events_depth ? c->events_depth + 1 : -1;
    if (c->depth == event_depth) {
        if (chrome_event_end(c) != 0) {
            c->db_error = 1;
            rc = 0;
        }
        c->field = F_NONE;
    } else if (c->depth == event_depth + 1 && c->in_args) {
        c->in_args = 0;
        c->field = F_NONE;
    } else if (c->events_depth && c->depth == c->events_depth) {
        c->events_depth = 0;
    }
    c->depth--;
    return rc;
}

static int cb_start_map(void *ctx)
{
    return on_open(ctx, '{');
}

static int cb_end_map(void *ctx)
{
    MARK_CLOSE(ctx);
    return on_close(ctx, '}');
}

static int cb_start_array(void *ctx)
{
    return on_open(ctx, '[');
}

static int cb_end_array(void *ctx)
{
    MARK_CLOSE(ctx);
    return on_close(ctx, ']');
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t n)
{
    struct chrome *c = ctx;
    if (__builtin_expect(n > c->max_string || c->oversize, 0)) {
        if (!c->oversize)
            c->oversize = (int64_t)n;
        oversize_string(c, 1);
    }
    if (c->cap_depth)
        return jw_key(&c->cap, (const char *)k, n) == 0;
    if (c->shape == 2 && c->depth == 1) {
        c->top_skip = c->top_skip == 2; /* a new top-level value; 2: this key itself was cut */
        c->top_key.n = 0;
        c->top_field = n == 11 && memcmp(k, "traceEvents", 11) == 0;
        if (c->top_keys.n < 120) { /* the first keys, for a message if no trace is found */
            if (c->top_keys.n)
                buf_add(&c->top_keys, ", ", 2);
            buf_add_utf8(&c->top_keys, (const char *)k, n < 40 ? n : 40);
        }
        return buf_add(&c->top_key, k, n) == 0;
    }
    int event_depth = c->events_depth ? c->events_depth + 1 : -1;
    if (c->depth == event_depth + 1 && c->in_args)
        return arg_key(c, k, n);
    if (c->depth == event_depth) {
        enum field f = F_OTHER;
        switch (n) { /* the event's own keys, by length and first byte */
        case 2:
            f = k[0] == 'p' && k[1] == 'h' ? F_PH : k[0] == 't' && k[1] == 's' ? F_TS
              : k[0] == 'i' && k[1] == 'd' ? F_ID : k[0] == 'b' && k[1] == 'p' ? F_BP : F_OTHER;
            break;
        case 3:
            f = memcmp(k, "cat", 3) == 0 ? F_CAT : memcmp(k, "pid", 3) == 0 ? F_PID
              : memcmp(k, "tid", 3) == 0 ? F_TID : memcmp(k, "dur", 3) == 0 ? F_DUR : F_OTHER;
            break;
        case 4:
            f = memcmp(k, "name", 4) == 0 ? F_NAME : memcmp(k, "args", 4) == 0 ? F_ARGS : F_OTHER;
            break;
        }
        if (f != F_OTHER) {
            c->field = f;
            return 1;
        }
        c->field = F_OTHER; /* s, tts, cname, id2, ...: kept with the args */
        return arg_key(c, k, n);
    }
    return 1;
}

static const yajl_callbacks chrome_callbacks = {
    cb_null, cb_boolean, NULL, NULL, cb_number, cb_string, cb_start_map, cb_map_key,
    cb_end_map, cb_start_array, cb_end_array,
};

/* ---------------------------------------------------------------- long strings
 * yajl re-lexes a token that spans chunks from its first byte each time a chunk arrives, so a string
 * fed 256 KiB at a time costs the square of its length (a 256 MB name: 47 s). tracedb follows the
 * lexical state itself, from the last '}' or ']' of each chunk to its end (a few hundred bytes), and
 * when a string has grown past a chunk it reads the rest of the string ahead and hands it to yajl in
 * one call: linear. A string longer than max_string is not kept: it is scanned past unstored, yajl
 * gets its first bytes closed by a quote, and the event holding it is skipped and reported. */


/* One byte of a string: 1 when it is the closing quote (the scan is then between tokens). */
static int string_byte(struct scan *sc, unsigned char ch)
{
    if (sc->esc == 1)
        sc->esc = ch == 'u' ? 5 : 0;
    else if (sc->esc > 1)
        sc->esc = sc->esc == 2 ? 0 : sc->esc - 1;
    else if (ch == '\\')
        sc->esc = 1;
    else if (ch == '"') {
        sc->state = SC_BETWEEN;
        return 1;
    }
    sc->len++;
    return 0;
}

/* Follows p[0..n) from the state in sc. */
static void scan_bytes(struct scan *sc, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = p[i];
        if (sc->state == SC_STRING) {
            string_byte(sc, ch);
            continue;
        }
        int delim = ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == ',' || ch == ':' || ch == '{' ||
                    ch == '}' || ch == '[' || ch == ']';
        if (sc->state == SC_LITERAL && !delim) {
            sc->len++;
            continue;
        }
        sc->state = ch == '"' ? SC_STRING : delim ? SC_BETWEEN : SC_LITERAL;
        sc->esc = 0;
        sc->len = sc->state == SC_LITERAL;
    }
}

/* Finds the end of a string in p[0..n) from sc (in the string); its index, or n. */
static size_t scan_string_end(struct scan *sc, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (string_byte(sc, p[i]))
            return i;
    return n;
}

static int feed(struct chrome *c, gzFile gz, unsigned char *chunk, const unsigned char *p, size_t n);

/* Damage found while reading ahead: reported here; 1. */
static int long_string_damage(struct chrome *c, size_t off, const char *why)
{
    fprintf(c->err, "tracedb: %s: invalid JSON near byte %zu: %s\n", c->file, off, why);
    snprintf(c->res->first_error, sizeof c->res->first_error, "byte %zu: invalid JSON: %s", off, why);
    return 1;
}

/* yajl has consumed everything up to c->chunk_base and stands inside a string longer than a chunk.
 * 0 to go on, 1 damaged (reported), -1 database error. */
static int feed_long_string(struct chrome *c, gzFile gz, unsigned char *chunk)
{
    struct scan *sc = &c->scan;
    size_t start = c->chunk_base; /* file offset of the first byte yajl has not seen */
    size_t seen = 0;              /* bytes read ahead since */
    int esc_seen = sc->esc;       /* the escape state where yajl stands */
    c->longbuf.n = 0;
    for (;;) {
        int got = gzread(gz, chunk, (unsigned)c->chunk_size);
        if (got < 0)
            return long_string_damage(c, start + seen, "compressed data damaged inside a string");
        if (got == 0) { /* the file ends inside the string: yajl says so at the end */
            if (sc->len > (int64_t)c->max_string)
                return long_string_damage(c, start + seen, "the file ends in the middle of a string (truncated?)");
            break;
        }
        seen += (size_t)got;
        size_t end = scan_string_end(sc, chunk, (size_t)got);
        if (sc->len <= (int64_t)c->max_string) {
            if (buf_add(&c->longbuf, chunk, (size_t)got) != 0)
                return long_string_damage(c, start, "out of memory for a long string");
            if (end < (size_t)got)
                break;
            continue;
        }
        /* over the limit: keep nothing more; find its end, then close yajl's copy of its start */
        buf_free(&c->longbuf);
        if (end == (size_t)got)
            continue;
        size_t quote = start + seen - (size_t)got + end; /* the closing quote's offset */
        c->oversize = sc->len;
        char close[8] = "\"";
        if (esc_seen == 1)
            memcpy(close, "n\"", 3);
        else if (esc_seen > 1)
            snprintf(close, sizeof close, "%.*s\"", esc_seen - 1, "0000");
        c->chunk_base = quote;
        if (yajl_parse(c->h, (const unsigned char *)close, strlen(close)) != yajl_status_ok)
            return c->db_error ? -1 : long_string_damage(c, quote, "a string that cannot be cut");
        c->oversize = 0;
        c->chunk_base = quote + 1;
        sc->state = SC_BETWEEN, sc->esc = 0, sc->len = 0;
        return feed(c, gz, chunk, chunk + end + 1, (size_t)got - end - 1);
    }
    if (sc->len > (int64_t)c->max_string) /* cut, and the file ended */
        return 0;
    /* yajl gets the rest of the string at once; the scan goes on from the state at its start */
    sc->state = SC_STRING, sc->esc = esc_seen, sc->len = 0;
    int rc = c->longbuf.n ? feed(c, gz, chunk, (const unsigned char *)c->longbuf.p, c->longbuf.n) : 0;
    if (c->longbuf.cap > 4 * CHUNK)
        buf_free(&c->longbuf);
    return rc;
}

/* Hands p[0..n) (a chunk as read, or what feed_long_string gathered) to yajl; c->chunk_base is p's
 * offset in the file and moves past it. 0 to go on, 1 damaged (reported), -1 database error,
 * 2 a yajl error (reported by the caller). */
static int feed(struct chrome *c, gzFile gz, unsigned char *chunk, const unsigned char *p, size_t n)
{
    c->close_end = NO_TOKEN;
    if (yajl_parse(c->h, p, n) != yajl_status_ok)
        return c->db_error ? -1 : 2;
    c->chunk_base += n;
    size_t from = 0;
    if (c->close_end != NO_TOKEN) { /* just past a bracket: between tokens */
        from = c->close_end;
        c->scan.state = SC_BETWEEN, c->scan.len = 0;
    }
    scan_bytes(&c->scan, p + from, n - from);
    if (c->scan.len <= CHUNK)
        return 0;
    if (c->scan.state == SC_LITERAL)
        return long_string_damage(c, c->chunk_base, "a number or literal longer than 256 KiB");
    return feed_long_string(c, gz, chunk);
}

/* The document holds no events array: say what it is instead. 1 (damaged input). */
static int chrome_no_trace(struct chrome *c)
{
    if (c->events_type)
        fprintf(c->err, "tracedb: %s: \"traceEvents\" is %s, not an array of events: no trace\n", c->file,
                c->events_type);
    else
        fprintf(c->err, "tracedb: %s: a JSON object with no \"traceEvents\" (its keys: %.*s): not a Chrome trace\n",
                c->file, (int)c->top_keys.n, c->top_keys.n ? c->top_keys.p : "none");
    snprintf(c->res->first_error, sizeof c->res->first_error, "no trace events (%s)",
             c->events_type ? "\"traceEvents\" is not an array" : "no \"traceEvents\"");
    return 1;
}

/* ---------------------------------------------------------------- driver */

static void chrome_devices(struct chrome *c)
{
    if (!c->devprops.n)
        return;
    cJSON *arr = cJSON_ParseWithLength(c->devprops.p, c->devprops.n);
    cJSON *d;
    cJSON_ArrayForEach(d, arr)
    {
        cJSON *id = cJSON_GetObjectItemCaseSensitive(d, "id");
        cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name");
        if (!cJSON_IsNumber(id))
            continue;
        char *text = cJSON_PrintUnformatted(d);
        if (!text)
            continue;
        struct tdb_str nm = cJSON_IsString(name) ? (struct tdb_str){name->valuestring, strlen(name->valuestring)}
                                                 : (struct tdb_str){NULL, 0};
        tdb_ingest_device(c->ing, (int64_t)id->valuedouble, nm, (struct tdb_str){text, strlen(text)});
        free(text);
    }
    cJSON_Delete(arr);
}

static int64_t chrome_rank(struct chrome *c)
{
    if (!c->distinfo.n)
        return TDB_NULL;
    cJSON *o = cJSON_ParseWithLength(c->distinfo.p, c->distinfo.n);
    cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "rank");
    int64_t rank = cJSON_IsNumber(r) ? (int64_t)r->valuedouble : TDB_NULL;
    cJSON_Delete(o);
    return rank;
}

static void progress(const char *file, size_t done, size_t total, int final)
{
    if (total)
        fprintf(stderr, "\rtracedb: importing %s: %3d%%", file, (int)(done * 100 / total));
    else
        fprintf(stderr, "\rtracedb: importing %s: %zu MB", file, done >> 20);
    if (final)
        fputc('\n', stderr);
}

/* Makes a text copy of a buffer (NUL-terminated) or NULL when empty. */
static char *buf_cstr(struct buf *b)
{
    if (!b->n)
        return NULL;
    if (buf_addc(b, 0) != 0)
        return NULL;
    b->n--;
    return b->p;
}

int tdb_import_chrome(struct tdb_ingest *ing, const char *path, int show_progress, FILE *err,
                      struct tdb_import_result *res)
{
    int64_t default_rank = res->default_rank;
    size_t max_string = res->max_string;
    int strict = res->strict;
    memset(res, 0, sizeof *res);
    res->default_rank = default_rank;
    res->max_string = max_string;
    res->strict = strict;
    int is_stdin = strcmp(path, "-") == 0;
    const char *file = is_stdin ? "<stdin>" : path;
    int fd = is_stdin ? dup(0) : open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(err, "tracedb: cannot open %s: %s\n", file, strerror(errno));
        return -1;
    }
    struct stat sb;
    size_t total = (!is_stdin && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) ? (size_t)sb.st_size : 0;
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        close(fd);
        fprintf(err, "tracedb: cannot read %s\n", file);
        return -1;
    }
    gzbuffer(gz, total && total < 64 * 1024 ? 8 * 1024 : 128 * 1024);

    struct chrome *c = calloc(1, sizeof *c);
    /* reads of CHUNK bytes; a small plain file gets a buffer its size (fuzzing runs thousands of them) */
    size_t chunk_size = total && total < CHUNK ? (total + 4095) / 4096 * 4096 : CHUNK;
    unsigned char *chunk = malloc(chunk_size);
    if (!c || !chunk) {
        free(c), free(chunk), gzclose(gz);
        fprintf(err, "tracedb: out of memory\n");
        return -1;
    }
    c->ing = ing, c->file = file, c->err = err, c->res = res, c->chunk_size = chunk_size;
    c->base_time_ns = TDB_NULL;
    c->max_string = res->max_string ? res->max_string : DEFAULT_MAX_STRING;
    c->strict = res->strict;
    jw_init(&c->extra_w, &c->extra);
    jw_open(&c->extra_w, '{');
    c->h = yajl_alloc(&chrome_callbacks, NULL, c);
    yajl_config(c->h, yajl_dont_validate_strings, 1);

    int status = tdb_ingest_begin_trace(ing, file, "chrome") < 0 ? -1 : 0; /* 0 complete, 1 damaged input, -1 database error */
    int tty = show_progress && isatty(2);
    size_t next_report = 8u << 20;
    while (status == 0) {
        int n = gzread(gz, chunk, (unsigned)c->chunk_size);
        if (n < 0) {
            int zerr;
            const char *msg = gzerror(gz, &zerr);
            fprintf(err, "tracedb: %s: compressed data damaged after byte %zu of the trace: %s\n", file,
                    c->chunk_base, msg);
            snprintf(res->first_error, sizeof res->first_error, "byte %zu: compressed data damaged: %s", c->chunk_base, msg);
            status = 1;
            break;
        }
        int fed = 0;
        if (n == 0 && c->chunk_base == 0) {
            fprintf(err, "tracedb: %s: empty file: no trace events\n", file);
            snprintf(res->first_error, sizeof res->first_error, "empty file");
            status = 1;
            break;
        }
        if (n == 0) {
            int zerr;
            gzerror(gz, &zerr);
            if (zerr == Z_BUF_ERROR) { /* the gzip stream ends early */
                fprintf(err, "tracedb: %s: compressed file is truncated after byte %zu of the trace\n", file, c->chunk_base);
                snprintf(res->first_error, sizeof res->first_error, "byte %zu: compressed file truncated", c->chunk_base);
                status = 1;
                break;
            }
            fed = yajl_complete_parse(c->h) == yajl_status_ok ? 0 : c->db_error ? -1 : 2;
        } else {
            fed = feed(c, gz, chunk, chunk, (size_t)n);
        }
        if (fed == 1 || fed == -1) {
            status = fed;
            break;
        }
        if (fed == 2) {
            size_t off = chrome_offset(c);
            if (n != 0 && off > 0)
                off--; /* yajl stands just past the offending token */
            unsigned char *msg = yajl_get_error(c->h, 0, NULL, 0);
            char *nl = strchr((char *)msg, '\n');
            if (nl)
                *nl = 0;
            const char *why = n == 0 ? "the file ends in the middle of the JSON (truncated?)" : (const char *)msg;
            fprintf(err, "tracedb: %s: invalid JSON near byte %zu: %s\n", file, off, why);
            snprintf(res->first_error, sizeof res->first_error, "byte %zu: invalid JSON: %s", off, why);
            yajl_free_error(c->h, msg);
            status = 1;
            break;
        }
        if (n == 0)
            break;
        if (tty && c->chunk_base >= next_report) {
            progress(file, total ? (size_t)gzoffset(gz) : c->chunk_base, total, 0);
            next_report += 8u << 20;
        }
    }
    if (tty && next_report > (8u << 20))
        progress(file, total, total, 1);
    for (size_t i = 0; status >= 0 && i < c->nopen; i++) { /* in file order */
        struct open_range *o = &c->open[i];
        if (chrome_anomaly(c, TDB_ANOMALY_NEVER_ENDED, o->offset))
            continue;
        int64_t last = (size_t)o->thread_id < c->thread_last_n ? c->thread_last[o->thread_id] : INT64_MIN;
        if (range_write(c, o, last > o->start_ns ? last : o->start_ns, TDB_ANOMALY_NEVER_ENDED) != 0)
            status = -1;
    }
    c->nopen = 0;
    for (int a = 0; status >= 0 && a < TDB_ANOMALY_COUNT; a++)
        if (res->anomalies[a])
            fprintf(err, "tracedb: %s: %lld event(s) %s (the first at byte %zu%s)\n", file,
                    (long long)res->anomalies[a], anomaly_what[a], res->anomaly_offset[a],
                    a == TDB_ANOMALY_END_WITHOUT_BEGIN ? "" : "; flagged in args \"tracedb.anomaly\"");
    if (status == 0 && !c->saw_events && c->shape != 0)
        status = chrome_no_trace(c);
    else if (status == 0 && c->saw_events && !res->events && !res->flows && !res->skipped)
        fprintf(err, "tracedb: %s: the trace holds no events\n", file);
    res->no_trace = c->shape == 0 || !c->saw_events;
    if (status == 0 && c->shape == 0) {
        if (c->top_scalar)
            fprintf(err, "tracedb: %s: the document is a %s, not a Chrome trace (an array of events, or an object "
                         "with \"traceEvents\")\n", file, c->top_scalar);
        else
            fprintf(err, "tracedb: %s: empty file: no trace events\n", file);
        snprintf(res->first_error, sizeof res->first_error, c->top_scalar ? "not a Chrome trace" : "empty file");
        status = 1;
    }
    if (status == 0 && res->skipped)
        status = 1;
    if (status >= 0) {
        chrome_devices(c);
        jw_close(&c->extra_w, '}');
        struct tdb_trace_info info = {
            .source_file = file,
            .source_format = c->shape == 1 ? "chrome-array" : "chrome-object",
            .name = buf_cstr(&c->trace_name),
            .base_time_ns = c->base_time_ns,
            .rank = chrome_rank(c) != TDB_NULL ? chrome_rank(c) : res->default_rank,
            .device_properties = buf_cstr(&c->devprops),
            .distributed_info = buf_cstr(&c->distinfo),
            .extra = c->extra.n > 2 ? buf_cstr(&c->extra) : NULL,
            .status = status == 0 ? "complete" : "partial",
            .error = res->first_error[0] ? res->first_error : NULL,
            .skipped_events = res->skipped,
        };
        if (tdb_ingest_end_trace(ing, &info) != 0)
            status = -1;
    }
    yajl_free(c->h);
    gzclose(gz);
    for (size_t i = 0; i < c->open_cap; i++) {
        buf_free(&c->open[i].name);
        buf_free(&c->open[i].cat);
        buf_free(&c->open[i].args);
    }
    free(c->open);
    buf_free(&c->arena);
    buf_free(&c->out_args);
    buf_free(&c->series);
    buf_free(&c->top_key);
    buf_free(&c->extra);
    buf_free(&c->devprops);
    buf_free(&c->distinfo);
    buf_free(&c->trace_name);
    buf_free(&c->top_value);
    buf_free(&c->longbuf);
    buf_free(&c->top_keys);
    free(c->thread_last);
    free(c->args);
    free(c);
    free(chunk);
    return status;
}
