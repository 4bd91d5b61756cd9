/* chrome_parse.c: yajl's callbacks for a Chrome trace (where each token lands: the event being read, its
 * args, a captured nested value, the top level), the same for the fast lane's walk (chrome_fast_sink), and
 * the yajl handles that call them (see chrome_import.c). */
#include "chrome_internal.h"

/* ---------------------------------------------------------------- yajl callbacks */

/* Routes a scalar to wherever the parser stands. */
static int on_scalar(struct chrome *c, enum vtype type, const char *text, size_t n)
{
    if (__builtin_expect(c->replay, 0))
        return 1;
    if (c->cap_depth) {
        if (type == V_STRING)
            return jw_string(&c->cap, text, n) == 0;
        return jw_raw(&c->cap, text, n) == 0;
    }
    int event_depth = c->events_depth ? c->events_depth + 1 : -1;
    if (c->depth == event_depth + 1 && c->in_args)
        return chrome_arg_scalar(c, type, text, n);
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
        case F_OTHER: return chrome_arg_scalar(c, type, text, n);
        case F_ARGS: chrome_event_bad(c, "%s is not an object", "\"args\""); return 1;
        default: return 1;
        }
        if (type == V_NULL || type == V_BOOL || type == V_NESTED) {
            if (c->field == F_PID || c->field == F_TID || c->field == F_CAT || c->field == F_ID)
                return 1; /* null pid/tid/cat: treated as absent */
            chrome_event_bad(c, "field has the wrong type (%s)", type == V_NULL ? "null" : "boolean");
            return 1;
        }
        if ((c->field == F_TS || c->field == F_DUR) && type == V_STRING) {
            chrome_event_bad(c, "%s is a string, not a number", c->field == F_TS ? "\"ts\"" : "\"dur\"");
            return 1;
        }
        if ((c->field == F_PH || c->field == F_NAME || c->field == F_CAT || c->field == F_BP) && type != V_STRING) {
            if (c->field == F_NAME) { /* a numeric name: keep its text */
                return chrome_arena_text(c, t, text, n, 0) == 0;
            }
            chrome_event_bad(c, "%s is not a string", c->field == F_PH ? "\"ph\"" : "\"cat\"");
            return 1;
        }
        return chrome_arena_text(c, t, text, n, is_text) == 0;
    }
    if (c->shape == 2 && c->depth == 1) {
        if (c->top_field == 1)
            c->events_type = type == V_NULL ? "null" : type == V_STRING ? "a string" : type == V_BOOL ? "a boolean"
                                                                                                 : "a number";
        return chrome_top_scalar(c, type, text, n);
    }
    if (c->depth == 0) {
        c->chrome_top_scalar = type == V_NULL ? "JSON null" : type == V_STRING ? "JSON string" : type == V_BOOL ? "JSON boolean"
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
        chrome_event_bad(c, "%s", why);
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
    if (__builtin_expect(c->replay, 0))
        return 1;
    if (c->fast && bracket == '{' && !c->cap_depth && c->events_depth && c->depth == c->events_depth && !c->in_fast) {
        size_t at = chrome_offset(c) - 1; /* an event's '{': the fast lane may take it from here */
        if (at >= c->fast_from) {
            c->fast_switch = 1, c->fast_at = at;
            return 0; /* yajl stops; chrome_feed hands the rest to the fast lane */
        }
    }
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
        chrome_event_reset(c);
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
            c->args[c->nargs - 1].vp = NULL;
            c->args[c->nargs - 1].val = c->arena.n;
            return capture_start(c, &c->arena, bracket);
        }
        if (c->field != F_NONE)
            chrome_event_bad(c, "a field that must be a scalar is %s", bracket == '[' ? "an array" : "an object");
        c->top_value.n = 0;
        return capture_start(c, &c->top_value, bracket); /* swallow it */
    }
    if (c->depth == event_depth + 2 && c->in_args && c->nargs) {
        struct arg *a = &c->args[c->nargs - 1];
        a->type = V_NESTED;
        a->vp = NULL;
        a->val = c->arena.n;
        return capture_start(c, &c->arena, bracket);
    }
    return 1;
}

static int on_close(struct chrome *c, char bracket)
{
    int rc = 1;
    if (__builtin_expect(c->replay, 0))
        return 1;
    if (c->cap_depth) {
        if (jw_close(&c->cap, bracket) != 0)
            return 0;
        if (c->depth == c->cap_depth) {
            c->cap_depth = 0;
            if (c->cap_buf == &c->arena) {
                struct arg *a = &c->args[c->nargs - 1];
                a->val_n = c->arena.n - a->val;
            } else if (c->shape == 2 && c->depth == 2 && c->cap_buf == &c->top_value) {
                rc = chrome_top_value_done(c, &c->top_value);
            }
        }
        c->depth--;
        return rc;
    }
    int event_depth = c->events_depth ? c->events_depth + 1 : -1;
    if (c->depth == event_depth) {
        (*(c->in_fast ? &c->fast_events : &c->yajl_events))++;
        if (chrome_event_end(c) != 0) {
            c->db_error = 1;
            rc = 0;
        }
        c->field = F_NONE;
    } else if (c->depth == event_depth + 1 && c->in_args) {
        c->in_args = 0;
        c->field = F_NONE;
    } else if (c->events_depth && c->depth == c->events_depth) {
        c->events_closed = c->events_depth;
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

/* The event's own keys, by length and first byte; F_OTHER for the rest (kept with the args). */
static enum field event_field(const unsigned char *k, size_t n)
{
    switch (n) {
    case 2:
        return k[0] == 'p' && k[1] == 'h' ? F_PH : k[0] == 't' && k[1] == 's' ? F_TS
             : k[0] == 'i' && k[1] == 'd' ? F_ID : k[0] == 'b' && k[1] == 'p' ? F_BP : F_OTHER;
    case 3:
        return memcmp(k, "cat", 3) == 0 ? F_CAT : memcmp(k, "pid", 3) == 0 ? F_PID
             : memcmp(k, "tid", 3) == 0 ? F_TID : memcmp(k, "dur", 3) == 0 ? F_DUR : F_OTHER;
    case 4:
        return memcmp(k, "name", 4) == 0 ? F_NAME : memcmp(k, "args", 4) == 0 ? F_ARGS : F_OTHER;
    }
    return F_OTHER;
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t n)
{
    struct chrome *c = ctx;
    if (__builtin_expect(c->replay, 0))
        return 1;
    if (__builtin_expect(n > c->max_string || c->oversize, 0)) {
        if (!c->oversize)
            c->oversize = (int64_t)n;
        oversize_string(c, 1);
    }
    if (c->cap_depth)
        return jw_key(&c->cap, (const char *)k, n) == 0;
    if (c->shape == 2 && c->depth == 1) {
        c->events_closed = 0;
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
        return chrome_arg_key(c, k, n);
    if (c->depth == event_depth) {
        enum field f = event_field(k, n);
        if (f != F_OTHER) {
            c->field = f;
            return 1;
        }
        c->field = F_OTHER; /* s, tts, cname, id2, ...: kept with the args */
        return chrome_arg_key(c, k, n);
    }
    return 1;
}

const yajl_callbacks chrome_callbacks = {
    cb_null, cb_boolean, NULL, NULL, cb_number, cb_string, cb_start_map, cb_map_key,
    cb_end_map, cb_start_array, cb_end_array,
};

/* ---------------------------------------------------------------- the fast lane's callbacks
 * The same callbacks, for json_fast.cpp's walk of whole events (see chrome_fast.c): 1 go on, 0 stop (a
 * database error), -1 leave the event to yajl: a string longer than max_string (yajl's lane cuts it and
 * measures it in raw bytes), a number of absurd length (yajl's lane calls it damage). */

static int fast_string(void *ctx, const unsigned char *s, size_t n)
{
    struct chrome *c = ctx;
    return n > c->max_string ? -1 : on_scalar(c, V_STRING, (const char *)s, n);
}

/* An event's own keys and its args' keys go straight where cb_map_key would send them (the walk is of
 * whole events: no replay, no top level); the rest (a capture, a cut string, other keys) through it. */
static int fast_key(void *ctx, const unsigned char *k, size_t n)
{
    struct chrome *c = ctx;
    if (n > c->max_string)
        return -1;
    if (!c->oversize && !c->cap_depth && c->events_depth) {
        int event_depth = c->events_depth + 1;
        if (c->depth == event_depth + 1 && c->in_args)
            return chrome_arg_key(c, k, n);
        enum field f;
        if (c->depth == event_depth && (f = event_field(k, n)) != F_OTHER) {
            c->field = f;
            return 1;
        }
    }
    return cb_map_key(c, k, n);
}

static int fast_number(void *ctx, const char *s, size_t n)
{
    return n > 4096 ? -1 : on_scalar(ctx, V_NUMBER, s, n);
}

static int fast_start_map(void *ctx)
{
    return on_open(ctx, '{');
}

static int fast_end_map(void *ctx)
{
    return on_close(ctx, '}');
}

static int fast_start_array(void *ctx)
{
    return on_open(ctx, '[');
}

static int fast_end_array(void *ctx)
{
    return on_close(ctx, ']');
}

static void fast_element(void *ctx, size_t offset)
{
    struct chrome *c = ctx;
    c->fast_elem = c->walk_base + offset;
}

void chrome_fast_sink(struct chrome *c, struct json_sink *k)
{
    *k = (struct json_sink){c, cb_null, cb_boolean, fast_number, fast_string, fast_start_map, fast_key,
                            fast_end_map, fast_start_array, fast_end_array, fast_element};
}

/* The document holds no events array: say what it is instead. 1 (damaged input). */
int chrome_no_trace(struct chrome *c)
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

int chrome_yajl_new(struct chrome *c)
{
    c->h = yajl_alloc(&chrome_callbacks, NULL, c);
    if (!c->h)
        return -1;
    yajl_config(c->h, yajl_dont_validate_strings, 1);
    return 0;
}

/* A new yajl handle standing between the events' array elements, as the old one would: before one
 * (after_event 0) or after one (1: a ',' or the array's end is next); the input goes on at file offset
 * base. 0, or -1 out of memory (printed). */
int chrome_yajl_between_events(struct chrome *c, size_t base, int after_event)
{
    if (chrome_yajl_new(c) != 0) {
        fprintf(c->err, "tracedb: out of memory\n");
        return -1;
    }
    c->replay = 1;
    const char *prime = c->events_depth == 1 ? "[" : "{\"\":[";
    yajl_parse(c->h, (const unsigned char *)prime, strlen(prime));
    if (after_event)
        yajl_parse(c->h, (const unsigned char *)"[]", 2);
    c->replay = 0;
    c->chunk_base = base;
    c->scan.state = SC_BETWEEN, c->scan.esc = 0, c->scan.len = 0;
    return 0;
}
