/* chrome_resync.c: damage inside the events array is skipped, not the end of the import: from where yajl
 * refused the input, the bytes are scanned (once, linearly) for the next '{' that stands between events,
 * by the brackets and strings seen since; a fresh yajl handle, primed to stand inside the events array,
 * parses from there. A candidate counts only when it parses as a whole event (yajl writes an event at its
 * closing brace); one that does not extends the span, and the scan goes on from where it failed. Each span
 * is reported (its bytes, why, the events kept after it) on stderr and in the trace's extra JSON. */
#include "chrome_internal.h"

/* yajl refused the input (c->h holds the error). When the parser stood inside the events array, the
 * damage starts or extends a span and the skip begins just past what yajl consumed: 1. 0 otherwise
 * (the import stops there, as for damage outside the events). */
int chrome_resync_begin(struct chrome *c)
{
    if (!c->events_depth && c->events_closed && c->depth < c->events_closed) { /* a stray ']' closed it */
        c->events_depth = c->events_closed;
        c->depth = c->events_depth;
    }
    if (!c->events_depth || c->depth < c->events_depth)
        return 0;
    struct resync *r = &c->resync;
    size_t used = yajl_get_bytes_consumed(c->h);
    size_t at = c->chunk_base + used - (used > 0); /* yajl stands just past the offending token */
    unsigned char *msg = yajl_get_error(c->h, 0, NULL, 0);
    char *nl = strchr((char *)msg, '\n');
    if (nl)
        *nl = 0;
    int inside = c->depth > c->events_depth; /* the damage is in an event: that event is dropped */
    if (!(r->trial && c->yajl_events + c->fast_events == r->trial_events)) { /* not a candidate that failed */
        r->spans++;
        if (r->spans <= MAX_REPORTED) {
            struct damaged_span *s = &r->span[r->spans - 1];
            s->from = inside ? c->event_offset : at;
            s->at = at;
            snprintf(s->why, sizeof s->why, "%s", (const char *)msg);
        }
        if (!c->res->first_error[0])
            snprintf(c->res->first_error, sizeof c->res->first_error, "byte %zu: invalid JSON: %s", at,
                     (const char *)msg);
    }
    r->depth = c->depth - c->events_depth;
    r->in_string = strstr((const char *)msg, "inside") != NULL; /* yajl stopped inside a string */
    yajl_free_error(c->h, msg);
    if (inside)
        c->res->skipped++;
    r->active = 1, r->esc = 0, r->prev = 0, r->trial = 0;
    c->depth = c->events_depth; /* between events again */
    c->cap_depth = 0, c->in_args = 0, c->field = F_NONE, c->oversize = 0;
    return 1;
}

/* Skips p[0..n): the index of the next event's '{' (a '{' outside strings with no container open since
 * the events array, not an object's value), or n. */
size_t chrome_resync_scan(struct chrome *c, const unsigned char *p, size_t n)
{
    struct resync *r = &c->resync;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = p[i];
        if (r->in_string) {
            if (r->esc)
                r->esc = 0;
            else if (ch == '\\')
                r->esc = 1;
            else if (ch == '"')
                r->in_string = 0;
            continue;
        }
        switch (ch) {
        case ' ': case '\t': case '\n': case '\r':
            continue;
        case '"':
            r->in_string = 1;
            break;
        case '{':
            if (r->depth == 0 && r->prev != ':')
                return i;
            r->depth++;
            break;
        case '[':
            r->depth++;
            break;
        case '}': case ']':
            if (r->depth > 0)
                r->depth--;
            break;
        }
        r->prev = ch;
    }
    return n;
}

/* The span ends before offset, a candidate event's '{': a new yajl handle, primed to stand inside the
 * events array, reads on from there (yajl reads the candidate; the fast lane may take the events after
 * it). 0, or -1 out of memory (printed). */
int chrome_resync_resume(struct chrome *c, size_t offset)
{
    struct resync *r = &c->resync;
    if (r->spans <= MAX_REPORTED) {
        struct damaged_span *s = &r->span[r->spans - 1];
        s->to = offset - 1;
        if (s->to < s->from) /* refused at this '{' ('}{', or a ']' before it): the byte before it */
            s->from = s->to;
        s->events = c->res->events;
    }
    yajl_free(c->h);
    if (chrome_yajl_between_events(c, offset, 0) != 0)
        return -1;
    if (c->fast_from <= offset)
        c->fast_from = offset + 1;
    r->active = 0, r->trial = 1;
    r->trial_events = c->yajl_events + c->fast_events;
    return 0;
}

/* The input ended while skipping: the span runs to its last byte (c->chunk_base is the file's length). */
void chrome_resync_end(struct chrome *c)
{
    struct resync *r = &c->resync;
    if (r->spans <= MAX_REPORTED) {
        r->span[r->spans - 1].to = c->chunk_base ? c->chunk_base - 1 : 0;
        r->span[r->spans - 1].events = c->res->events;
    }
    r->active = 0;
}

/* Once the file is read: each span on stderr (the first MAX_REPORTED; the rest counted). */
void chrome_resync_report(struct chrome *c)
{
    struct resync *r = &c->resync;
    if (r->active) /* the read stopped while skipping (a read error): the span ends where it stopped */
        chrome_resync_end(c);
    if (!r->spans)
        return;
    if (c->progress_open)
        fputc('\n', c->err), c->progress_open = 0;
    for (int64_t i = 0; i < r->spans && i < MAX_REPORTED; i++) {
        const struct damaged_span *s = &r->span[i];
        fprintf(c->err, "tracedb: %s: bytes %zu-%zu damaged (invalid JSON near byte %zu: %s), skipped; %lld "
                "event(s) after it kept\n", c->file, s->from, s->to, s->at, s->why,
                (long long)(c->res->events - s->events));
    }
    if (r->spans > MAX_REPORTED)
        fprintf(c->err, "tracedb: %s: %lld more damaged span(s) skipped\n", c->file,
                (long long)(r->spans - MAX_REPORTED));
}

/* The spans in the trace's extra JSON: "tracedb.damaged_spans" (how many) and "tracedb.damaged_bytes"
 * (the first MAX_REPORTED, [from, to] with both ends included). */
void chrome_resync_extra(struct chrome *c)
{
    struct resync *r = &c->resync;
    if (!r->spans)
        return;
    jw_key(&c->extra_w, "tracedb.damaged_spans", 21);
    jw_int(&c->extra_w, r->spans);
    jw_key(&c->extra_w, "tracedb.damaged_bytes", 21);
    jw_open(&c->extra_w, '[');
    for (int64_t i = 0; i < r->spans && i < MAX_REPORTED; i++) {
        jw_open(&c->extra_w, '[');
        jw_int(&c->extra_w, (int64_t)r->span[i].from);
        jw_int(&c->extra_w, (int64_t)r->span[i].to);
        jw_close(&c->extra_w, ']');
    }
    jw_close(&c->extra_w, ']');
}
