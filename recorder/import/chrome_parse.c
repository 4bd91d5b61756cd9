/* chrome_parse.c: yajl's callbacks for a Chrome trace (where each token lands: the event being read, its
 * args, a captured nested value, the top level) and the reader that keeps strings of any length linear
 * (see chrome_import.c). */
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

/* Damage found while reading ahead: reported here; 1. */
static int long_string_damage(struct chrome *c, size_t off, const char *why)
{
    fprintf(c->err, "tracedb: %s: invalid JSON near byte %zu: %s\n", c->file, off, why);
    snprintf(c->res->first_error, sizeof c->res->first_error, "byte %zu: invalid JSON: %s", off, why);
    return 1;
}

/* yajl has consumed everything up to c->chunk_base and stands inside a string longer than a chunk.
 * 0 to go on, 1 damaged (reported), -1 database error. */
static int feed_long_string(struct chrome *c, struct read_ahead *in, unsigned char *chunk)
{
    struct scan *sc = &c->scan;
    size_t start = c->chunk_base; /* file offset of the first byte yajl has not seen */
    size_t seen = 0;              /* bytes read ahead since */
    int esc_seen = sc->esc;       /* the escape state where yajl stands */
    c->longbuf.n = 0;
    for (;;) {
        int got = read_ahead_read(in, chunk, (unsigned)c->chunk_size);
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
        return chrome_feed(c, in, chunk, chunk + end + 1, (size_t)got - end - 1);
    }
    if (sc->len > (int64_t)c->max_string) /* cut, and the file ended */
        return 0;
    /* yajl gets the rest of the string at once; the scan goes on from the state at its start */
    sc->state = SC_STRING, sc->esc = esc_seen, sc->len = 0;
    int rc = c->longbuf.n ? chrome_feed(c, in, chunk, (const unsigned char *)c->longbuf.p, c->longbuf.n) : 0;
    if (c->longbuf.cap > 4 * CHUNK)
        buf_free(&c->longbuf);
    return rc;
}

/* Hands p[0..n) (a chunk as read, or what feed_long_string gathered) to yajl; c->chunk_base is p's
 * offset in the file and moves past it. Damage inside the events array is skipped to the next event
 * (chrome_resync.c), in this chunk or a later one. 0 to go on, 1 damaged (reported), -1 database error,
 * 2 a yajl error (reported by the caller), 3 yajl stopped at an event for the fast lane (which now holds
 * the rest of p: chrome_fast_lane goes on from there). */
int chrome_feed(struct chrome *c, struct read_ahead *in, unsigned char *chunk, const unsigned char *p, size_t n)
{
    for (;;) {
        if (__builtin_expect(c->resync.active, 0)) {
            size_t k = chrome_resync_scan(c, p, n);
            if (k == n) {
                c->chunk_base += n;
                return 0;
            }
            if (chrome_resync_resume(c, c->chunk_base + k) != 0)
                return -1;
            p += k, n -= k;
        }
        c->close_end = NO_TOKEN;
        yajl_status st = yajl_parse(c->h, p, n);
        if (__builtin_expect(st == yajl_status_ok, 1))
            break;
        if (c->fast_switch)
            return chrome_fast_take(c, p + (c->fast_at - c->chunk_base), n - (c->fast_at - c->chunk_base));
        if (c->db_error)
            return -1;
        if (st != yajl_status_error || !chrome_resync_begin(c))
            return 2;
        size_t used = yajl_get_bytes_consumed(c->h);
        if (used && p[used - 1] == '{' && !c->resync.depth)
            used--; /* refused where an event may start ('}{', a stray ']'): the scan looks at it again */
        p += used, n -= used, c->chunk_base += used;
    }
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
    return feed_long_string(c, in, chunk);
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
