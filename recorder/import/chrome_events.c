/* chrome_events.c: a finished event object of a Chrome trace into rows (see chrome_import.c): its fields
 * and args (args that become columns are promoted), its kind, B/E matching per thread, counters,
 * metadata, flows, and the anomalies real traces carry (kept and flagged, or errors with --strict). */
#include "chrome_internal.h"
#include "seed_formats.h"
#include <strings.h>

/* The args that become columns, by their raw key (no escape: a key with one never matches): its length
 * and first byte find the one candidate, one memcmp says. -1 for the rest. */
static int arg_slot_of(const unsigned char *k, size_t n)
{
#define IS(lit, slot) (n == sizeof(lit) - 1 && memcmp(k, lit, n) == 0 ? (slot) : -1)
    if (n < 4 || n > 25)
        return -1;
    switch (k[0]) {
    case 'A': return IS("Addr", S_ADDR);
    case 'a': return IS("args_string", S_ARGS_STRING);
    case 'B': return IS("Bytes", S_MEM_BYTES);
    case 'D': return n == 11 ? IS("Device Type", S_DEVICE_TYPE) : IS("Device Id", S_DEVICE_ID);
    case 'E': return n == 11 ? IS("External id", S_EXTERNAL_ID) : IS("Ev Idx", S_EV_IDX);
    case 'T': return n == 15 ? IS("Total Allocated", S_TOTAL_ALLOCATED) : IS("Total Reserved", S_TOTAL_RESERVED);
    case 'b': return n == 5 ? (k[1] == 'y' ? IS("bytes", S_BYTES) : IS("block", S_BLOCK)) : IS("blocks per SM", S_BLOCKS_PER_SM);
    case 'c': return IS("correlation", S_CORRELATION);
    case 'd': return IS("device", S_DEVICE);
    case 'e': return n == 11 ? IS("external id", S_EXTERNAL_ID_LC) : IS("est. achieved occupancy %", S_OCCUPANCY);
    case 'g': return IS("grid", S_GRID);
    case 'i': return IS("instruction_index", S_INSTRUCTION_INDEX);
    case 'l': return IS("labels", S_LABELS);
    case 'n': return IS("name", S_NAME);
    case 'o': return IS("operator_index", S_OPERATOR_INDEX);
    case 'p': return IS("pe_index", S_PE_INDEX);
    case 'r': return IS("registers per thread", S_REGISTERS);
    case 's': return n == 6 ? IS("stream", S_STREAM) : n == 10 ? IS("sort_index", S_SORT_INDEX) : IS("shared memory", S_SHARED_MEM);
    case 'w': return IS("warps per SM", S_WARPS_PER_SM);
    default: return -1;
    }
#undef IS
}

/* ---------------------------------------------------------------- small helpers */

size_t chrome_offset(struct chrome *c)
{
    if (c->in_fast) /* only an event's '{' asks, when the fast lane walks it: yajl would stand past it */
        return c->fast_elem + 1;
    return c->chunk_base + yajl_get_bytes_consumed(c->h);
}

void chrome_skip(struct chrome *c, size_t offset, const char *reason)
{
    c->res->skipped++;
    if (c->res->skipped <= MAX_REPORTED)
        fprintf(c->err, "tracedb: %s: event at byte %zu skipped: %s\n", c->file, offset, reason);
    if (!c->res->first_error[0])
        snprintf(c->res->first_error, sizeof c->res->first_error, "byte %zu: %s", offset, reason);
}

const char *const chrome_anomaly_what[TDB_ANOMALY_COUNT] = {
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
int chrome_anomaly(struct chrome *c, enum tdb_anomaly a, size_t offset)
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

int chrome_arena_text(struct chrome *c, struct text *t, const char *s, size_t n, int is_text)
{
    t->n = n;
    t->set = 1;
    t->is_text = is_text;
    if (c->in_fast) { /* the walked input stays put until the event is written: no copy */
        t->direct = s;
        return 0;
    }
    t->direct = NULL;
    t->off = c->arena.n;
    return buf_add(&c->arena, s, n);
}

/* Where text (or an arg's key or value) is: the walked input, or the arena (which an event of empty
 * texts only never allocated). */
static const char *in_arena(const struct chrome *c, size_t off)
{
    return c->arena.p ? c->arena.p + off : "";
}

static const char *text_ptr(const struct chrome *c, const struct text *t)
{
    return t->direct ? t->direct : in_arena(c, t->off);
}

static struct tdb_str text_str(const struct chrome *c, const struct text *t)
{
    struct tdb_str s = {t->set ? text_ptr(c, t) : NULL, t->set ? t->n : 0};
    return s;
}

static int text_is(const struct chrome *c, const struct text *t, const char *lit)
{
    size_t n = strlen(lit);
    return t->set && t->n == n && memcmp(text_ptr(c, t), lit, n) == 0;
}

static int ci_equal(const char *a, size_t n, const char *lit)
{
    return n == strlen(lit) && strncasecmp(a, lit, n) == 0;
}

void chrome_event_reset(struct chrome *c)
{
    c->arena.n = 0;
    c->nargs = 0;
    memset(&c->ph, 0, sizeof c->ph);
    c->cat = c->name = c->pid = c->tid = c->ts = c->dur = c->id = c->bp = c->ph;
    c->field = F_NONE;
    c->in_args = 0;
    c->chrome_event_bad = 0;
    memset(c->slot_arg, 0xff, sizeof c->slot_arg);
}

void chrome_event_bad(struct chrome *c, const char *fmt, const char *what)
{
    if (!c->chrome_event_bad)
        snprintf(c->bad_reason, sizeof c->bad_reason, fmt, what);
    c->chrome_event_bad = 1;
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

static const char *arg_key(const struct chrome *c, const struct arg *a)
{
    return a->kp ? a->kp : in_arena(c, a->key);
}

static const char *arg_val(const struct chrome *c, const struct arg *a)
{
    return a->vp ? a->vp : in_arena(c, a->val);
}

/* Starts an arg (or unknown event field) with this key: where the fast lane found it, or a copy. */
int chrome_arg_key(struct chrome *c, const unsigned char *k, size_t n)
{
    struct arg *a = arg_new(c);
    if (!a)
        return 0;
    a->key_n = n;
    if (c->in_fast)
        a->kp = (const char *)k;
    else if ((a->key = c->arena.n, buf_add(&c->arena, k, n)) != 0)
        return 0;
    a->type = V_NULL;
    int slot = arg_slot_of(k, n);
    if (slot >= 0)
        c->slot_arg[slot] = (int)c->nargs - 1;
    return 1;
}

/* The value of the arg just started: JSON text, or a string's unescaped text (args_json escapes it). */
int chrome_arg_scalar(struct chrome *c, enum vtype type, const char *text, size_t n)
{
    if (!c->nargs)
        return 1;
    struct arg *a = &c->args[c->nargs - 1];
    a->type = type;
    a->val_n = n;
    if (c->in_fast) {
        a->vp = text;
        return 1;
    }
    a->vp = NULL;
    a->val = c->arena.n;
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
    if (!a || a->type != V_NUMBER || tdb_parse_int(arg_val(c, a), a->val_n, &v) != 0)
        return TDB_NULL;
    a->promoted = 1;
    return v;
}

/* An index Furiosa writes as a string ("0") or a number, left in the args; TDB_NULL when absent or not
 * a whole number. */
static int64_t arg_index(struct chrome *c, enum arg_slot slot)
{
    struct arg *a = arg_slot(c, slot);
    int64_t v;
    if (!a || (a->type != V_NUMBER && a->type != V_STRING) || tdb_parse_int(arg_val(c, a), a->val_n, &v) != 0)
        return TDB_NULL;
    return v;
}

/* strtod's value of a plain decimal, [-]digits[.digits] with at most 19 digits whose integer is below
 * 2^53 and at most 22 after the point, found without strtod: that integer and the power of ten are both
 * exact doubles, and one IEEE division rounds correctly (Clinger's fast path). 0, or -1 for any other
 * text (strtod decides). */
static int plain_decimal(const char *s, size_t n, double *out)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    size_t i = n && s[0] == '-';
    uint64_t m = 0;
    int digits = 0, frac = -1;
    for (; i < n; i++) {
        if (s[i] == '.' && frac < 0 && digits) {
            frac = 0;
            continue;
        }
        if (s[i] < '0' || s[i] > '9' || ++digits > 19)
            return -1;
        m = m * 10 + (uint64_t)(s[i] - '0');
        frac += frac >= 0;
    }
    if (!digits || frac == 0 || m >= (uint64_t)1 << 53 || frac > 22)
        return -1;
    double v = (double)m / pow10[frac < 0 ? 0 : frac];
    *out = s[0] == '-' ? -v : v;
    return 0;
}

static double arg_real(struct chrome *c, enum arg_slot slot)
{
    struct arg *a = arg_slot(c, slot);
    if (!a || a->type != V_NUMBER || a->val_n >= 64)
        return NAN;
    a->promoted = 1;
    double v;
    if (plain_decimal(arg_val(c, a), a->val_n, &v) == 0)
        return v;
    char tmp[64];
    memcpy(tmp, arg_val(c, a), a->val_n);
    tmp[a->val_n] = 0;
    return strtod(tmp, NULL);
}

/* Reads "[x,y,z]" (as the arena holds nested values: compact) into v; promotes the arg when it fits. */
static void arg_dim3(struct chrome *c, enum arg_slot slot, int64_t v[3])
{
    v[0] = v[1] = v[2] = TDB_NULL;
    struct arg *a = arg_slot(c, slot);
    if (!a || a->type != V_NESTED || a->val_n < 7)
        return;
    const char *p = arg_val(c, a), *end = p + a->val_n;
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
        buf_add_json_string(&c->out_args, arg_key(c, a), a->key_n);
        buf_addc(&c->out_args, ':');
        if (a->type == V_STRING)
            buf_add_json_string(&c->out_args, arg_val(c, a), a->val_n);
        else
            buf_add(&c->out_args, arg_val(c, a), a->val_n);
    }
    const struct arg *raf = arg_slot(c, S_ARGS_STRING);
    if (raf && raf->type == V_STRING) /* RAF's inputs, as PyTorch writes them */
        raf_input_args(arg_val(c, raf), raf->val_n, &c->out_args);
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
        if (c->name.set && c->name.n > 13 && memcmp(text_ptr(c, &c->name), "ProfilerStep#", 13) == 0)
            return TDB_KIND_RANGE; /* the profiler's own step ranges, in the legacy export too */
        return TDB_KIND_OP; /* PyTorch's legacy export writes operators with no category */
    }
#define CAT(name, kind) {name, sizeof(name) - 1, kind}
    static const struct {
        const char *cat;
        size_t n;
        int kind;
    } cats[] = {
        CAT("cpu_op", TDB_KIND_OP),           CAT("operator", TDB_KIND_OP),
        CAT("user_annotation", TDB_KIND_RANGE), CAT("gpu_user_annotation", TDB_KIND_GPU_RANGE),
        CAT("python_function", TDB_KIND_PYTHON), CAT("cuda_runtime", TDB_KIND_RUNTIME),
        CAT("runtime", TDB_KIND_RUNTIME),     CAT("cuda_driver", TDB_KIND_DRIVER),
        CAT("driver", TDB_KIND_DRIVER),       CAT("kernel", TDB_KIND_KERNEL),
        CAT("gpu_memcpy", TDB_KIND_MEMCPY),   CAT("memcpy", TDB_KIND_MEMCPY),
        CAT("gpu_memset", TDB_KIND_MEMSET),   CAT("memset", TDB_KIND_MEMSET),
        CAT("cuda_sync", TDB_KIND_SYNC),      CAT("trace", TDB_KIND_TRACE),
        CAT("cpu_instant_event", TDB_KIND_INSTANT),
    };
#undef CAT
    const char *cs = text_ptr(c, &c->cat);
    for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++)
        if (cats[i].n == c->cat.n && ci_equal(cs, c->cat.n, cats[i].cat)) {
            if (cats[i].kind == TDB_KIND_RUNTIME && c->slot_arg[S_CORRELATION] < 0 && c->cat.n == 7 &&
                memcmp(cs, "Runtime", 7) == 0)
                return TDB_KIND_RANGE; /* Furiosa's labels (profiler.record); Kineto's Runtime calls carry a correlation */
            return cats[i].kind;
        }
    if (ph == 'i' || ph == 'I')
        return TDB_KIND_INSTANT;
    int seed = seed_kind(cs, c->cat.n, c->name.set ? text_ptr(c, &c->name) : "", c->name.set ? c->name.n : 0,
                         c->slot_arg[S_PE_INDEX] >= 0, c->slot_arg[S_INSTRUCTION_INDEX] >= 0);
    if (seed >= 0)
        return seed; /* RAF's streams, Furiosa's NPU, host and label spans */
    if (ph == 'B' || ph == 'E')
        return TDB_KIND_OP; /* RAF's other B/E spans: VM instructions, host operators */
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
        chrome_event_bad(c, "no %s", what);
        return -1;
    }
    int rc = tdb_us_to_ns(text_ptr(c, t), t->n, out);
    if (rc == 0 && (*out > TDB_TIME_MAX || *out < -TDB_TIME_MAX))
        rc = -2; /* past 146 years either way: not a time (see TDB_TIME_MAX) */
    if (rc == -2)
        chrome_event_bad(c, "%s out of range", what);
    else if (rc != 0)
        chrome_event_bad(c, "%s is not a number", what);
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
    memcpy(field, text_ptr(c, &c->name), c->name.n);
    field[c->name.n] = 0;
    const struct arg *a = arg_slot(c, strcmp(field, "process_labels") == 0 ? S_LABELS
                                      : strstr(field, "sort_index")        ? S_SORT_INDEX
                                                                           : S_NAME);
    if (!a)
        return 0;
    struct tdb_str text = {NULL, 0};
    int64_t num = TDB_NULL;
    if (a->type == V_STRING)
        text = (struct tdb_str){arg_val(c, a), a->val_n};
    else if (a->type == V_NUMBER)
        tdb_parse_int(arg_val(c, a), a->val_n, &num);
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
        buf_add(&name, text_ptr(c, &c->name), c->name.n);
        buf_addc(&name, '.');
        size_t at = name.n; /* the key as JSON writes it, without its quotes */
        buf_add_json_string(&name, arg_key(c, a), a->key_n);
        memmove(name.p + at, name.p + at + 1, name.n - at - 2);
        name.n -= 2;
        char tmp[64];
        size_t n = a->val_n < sizeof tmp - 1 ? a->val_n : sizeof tmp - 1;
        memcpy(tmp, arg_val(c, a), n);
        tmp[n] = 0;
        rc = tdb_ingest_counter(c->ing, thread, (struct tdb_str){name.p, name.n}, ts, strtod(tmp, NULL));
    }
    c->series = name;
    return rc;
}

/* RAF's stream spans: device 0 (RAF's trace names none), the stream its category numbers. */
static void raf_device(struct tdb_str cat, struct tdb_event *ev)
{
    int64_t stream = cat.p ? raf_stream(cat.p, cat.n) : -1;
    if (stream >= 0)
        ev->device = 0, ev->stream = stream;
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
    if (ev->device == TDB_NULL && (ev->kind == TDB_KIND_KERNEL || ev->kind == TDB_KIND_MEMCPY || ev->kind == TDB_KIND_EXECUTION) &&
        (ev->device = arg_index(c, S_PE_INDEX)) != TDB_NULL && ev->stream == TDB_NULL)
        ev->stream = 0; /* Furiosa: each PE a device, with one queue */
    if (ev->device == TDB_NULL && ev->kind == TDB_KIND_KERNEL)
        raf_device(text_str(c, &c->cat), ev);
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
    struct tdb_str a = args_json(c);
    struct open_range r = {thread, start, c->event_offset, kind, c->cat.set, {text_ptr(c, &c->name), c->name.n},
                           {text_ptr(c, &c->cat), c->cat.n}, a};
    return open_ranges_push(&c->open, &r);
}

/* The E event: closes the innermost open B on its track. */
static int open_pop(struct chrome *c, int64_t thread, int64_t end)
{
    struct open_range o;
    int found = open_ranges_find(&c->open, thread, &o);
    if (found < 0)
        return -1;
    if (!found) {
        chrome_anomaly(c, TDB_ANOMALY_END_WITHOUT_BEGIN, c->event_offset);
        return 0;
    }
    enum tdb_anomaly flag = TDB_ANOMALY_COUNT;
    if (end < o.start_ns) {
        if (chrome_anomaly(c, TDB_ANOMALY_END_BEFORE_BEGIN, c->event_offset))
            return 0;
        end = o.start_ns;
        flag = TDB_ANOMALY_END_BEFORE_BEGIN;
    }
    if (chrome_range_write(c, &o, end, flag) != 0)
        return -1;
    return open_ranges_drop(&c->open);
}

/* Writes the range of B event o, ending at end; flag: an anomaly to note in its args, or COUNT. */
int chrome_range_write(struct chrome *c, const struct open_range *o, int64_t end, enum tdb_anomaly flag)
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
    if (ev.kind == TDB_KIND_KERNEL && o->has_cat)
        raf_device(ev.cat, &ev);
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

/* A complete event's "dur" into *dur: 0, or 1 when the event is skipped (said so). A negative one is
 * an anomaly: kept as 0 and flagged in *flag, or skipped with --strict. */
static int chrome_duration(struct chrome *c, int64_t thread, int64_t ts, int64_t *dur, enum tdb_anomaly *flag)
{
    if (chrome_time(c, &c->dur, "\"dur\"", dur) != 0) {
        chrome_skip(c, c->event_offset, c->bad_reason);
        return 1;
    }
    if (*dur < 0) {
        if (chrome_anomaly(c, TDB_ANOMALY_NEGATIVE_DUR, c->event_offset))
            return 1;
        *dur = 0;
        *flag = TDB_ANOMALY_NEGATIVE_DUR;
    }
    if (ts > TDB_TIME_MAX - *dur) {
        chrome_skip(c, c->event_offset, "\"ts\" + \"dur\" out of range");
        return 1;
    }
    thread_seen(c, thread, ts + *dur);
    return 0;
}

/* A flow arrow's end (ph s, t, f): its id is an integer or a "0x1f" string. -1 on a database error. */
static int chrome_flow(struct chrome *c, char ph, int64_t thread, int64_t ts)
{
    int64_t id = TDB_NULL;
    if (c->id.set && tdb_parse_int(text_ptr(c, &c->id), c->id.n, &id) != 0) {
        char tmp[32];
        size_t n = c->id.n < sizeof tmp - 1 ? c->id.n : sizeof tmp - 1;
        memcpy(tmp, text_ptr(c, &c->id), n);
        tmp[n] = 0;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(tmp, &end, 0);
        id = (*end == 0 && errno == 0 && n > 0) ? (int64_t)v : TDB_NULL;
    }
    if (tdb_ingest_flow(c->ing, thread, id, text_str(c, &c->cat), ph, ts, text_is(c, &c->bp, "e")) != 0)
        return -1;
    c->res->flows++;
    return 0;
}

static void chrome_unknown_phase(struct chrome *c, char ph)
{
    char reason[64];
    if (ph > 0x20 && ph < 0x7f)
        snprintf(reason, sizeof reason, "unknown phase \"%c\"", ph);
    else /* never a raw control byte on the terminal */
        snprintf(reason, sizeof reason, "unknown phase (byte 0x%02x)", (unsigned char)ph);
    chrome_skip(c, c->event_offset, reason);
}

/* Writes a complete, instant or async event (its args promoted to columns where they are columns). */
static int chrome_write_event(struct chrome *c, char ph, int64_t thread, int64_t ts, int64_t dur,
                              enum tdb_anomaly flag)
{
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

/* The closing brace of an event: validate, convert, write. -1 only for database errors. */
int chrome_event_end(struct chrome *c)
{
    if (c->chrome_event_bad || !c->ph.set || c->ph.n == 0) {
        chrome_skip(c, c->event_offset, c->chrome_event_bad ? c->bad_reason : "no \"ph\" (phase)");
        return 0;
    }
    char ph = text_ptr(c, &c->ph)[0];
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
        if (chrome_duration(c, thread, ts, &dur, &flag) != 0)
            return 0;
        break;
    case 'i':
    case 'I':
    case 'n':
    case 'b':
    case 'e': /* async halves: kept as instants of kind async */
        break;
    case 'B': {
        int kind = kind_of(c, ph);
        return kind < 0 ? -1 : open_push(c, thread, ts, kind);
    }
    case 'E':
        return open_pop(c, thread, ts);
    case 'C':
        return chrome_counter(c, thread, ts);
    case 's':
    case 't':
    case 'f':
        return chrome_flow(c, ph, thread, ts);
    default:
        chrome_unknown_phase(c, ph);
        return 0;
    }
    return chrome_write_event(c, ph, thread, ts, dur, flag);
}

/* ---------------------------------------------------------------- top level */

/* Called when a captured top-level value is complete. */
int chrome_top_value_done(struct chrome *c, struct buf *value)
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

int chrome_top_scalar(struct chrome *c, enum vtype type, const char *text, size_t n)
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
