/* chrome_fast.c: the Chrome importer's fast lane. yajl reads the document (chrome_import.c), and when it
 * reaches an event of the events array it stops there; from that '{' on, the bytes are read into one
 * reused buffer, cut after the last whole-looking event ("}" "," "{" with blanks between), and that run
 * of events is walked by simdjson (json_fast.cpp), which calls the very callbacks yajl calls. So the rows
 * are the yajl lane's, byte for byte, at simdjson's pace.
 *
 * Whatever the fast lane does not take goes back to yajl, from the first byte it did not consume: the
 * run's cut fell inside a string or a nested value (the run does not parse), damage, an event the two
 * parsers could decode differently (json_fast.cpp), an event bigger than the buffer, the end of the
 * events array. A new yajl handle is primed to stand where the old one would ("[" or {"":[ fed with the
 * callbacks switched off, plus "[]" when an event was just read), so yajl's messages, offsets and
 * recovery stay what they were; yajl takes at least the rest of the run before an event may go to the
 * fast lane again. TRACEDB_JSON=yajl turns the fast lane off (the two lanes' databases can be compared). */
#include "chrome_internal.h"

/* Reads until the buffer holds FAST_RUN bytes or the input ends (the read's last result kept for
 * chrome_read, which reports it). */
static void fast_fill(struct chrome *c, struct read_ahead *in)
{
    while (!c->in_end && c->fb_n < FAST_RUN) {
        int got = read_ahead_read(in, c->fb + c->fb_n, (unsigned)(FAST_RUN - c->fb_n));
        if (got <= 0) {
            c->in_end = 1, c->in_end_n = got;
            break;
        }
        c->fb_n += (size_t)got;
    }
}

static int blank(unsigned char ch)
{
    return ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t';
}

/* The last '}' in b[0..n) followed by blanks, ',', blanks and '{': where the run is cut. 0 when none. */
static size_t run_end(const unsigned char *b, size_t n)
{
    for (const unsigned char *open = b + n - 1; open > b; open--) {
        if (*open != '{')
            continue;
        const unsigned char *q = open - 1;
        while (q > b && blank(*q))
            q--;
        if (*q == ',' && q > b) {
            q--;
            while (q > b && blank(*q))
                q--;
            if (*q == '}' && q > b)
                return (size_t)(q - b);
        }
    }
    return 0;
}

/* Everything from fb[at] on goes to a new yajl handle, primed to stand between the events' array
 * elements: before one (after_event 0: fb[at] is an event's '{') or after one (1: a ',' or the array's
 * end is next). Returns what chrome_feed returns. */
static int fast_handback(struct chrome *c, struct read_ahead *in, size_t at, int after_event)
{
    if (chrome_yajl_between_events(c, c->fb_base + at, after_event) != 0)
        return -1;
    return at < c->fb_n ? chrome_feed(c, in, c->chunk, c->fb + at, c->fb_n - at) : 0;
}

/* After a walk stopped inside an event, the parser's state is put back to between events (the event's
 * own fields are reset when yajl opens it again). */
static void fast_rollback(struct chrome *c)
{
    c->depth = c->events_depth;
    c->cap_depth = 0;
    c->in_args = 0;
    c->field = F_NONE;
    c->oversize = 0;
}

int chrome_fast_lane(struct chrome *c, struct read_ahead *in)
{
    struct json_sink sink;
    chrome_fast_sink(c, &sink);
    for (;;) { /* fb[0] is an event's '{' */
        fast_fill(c, in);
        size_t end = run_end(c->fb, c->fb_n);
        if (end == 0) { /* one event fills the buffer, or the last ones before the array's end */
            c->fast_from = c->fb_base + c->fb_n;
            return fast_handback(c, in, 0, 0);
        }
        unsigned char *run = c->fb - 1, keep = c->fb[end + 1];
        run[0] = '[', c->fb[end + 1] = ']';
        c->in_fast = 1, c->walk_base = c->fb_base - 1;
        size_t after;
        enum json_walk w = json_fast_walk(c->fast, (const char *)run, end + 3, &sink, &after);
        c->in_fast = 0, c->fb[end + 1] = keep;
        if (w == JSON_WALK_REFUSED || w == JSON_WALK_LOST) {
            if (!c->db_error)
                fprintf(c->err, "tracedb: %s\n", w == JSON_WALK_LOST ? "internal error: the JSON reader lost its place" : "out of memory");
            return -1;
        }
        if (w == JSON_WALK_STOPPED) {
            fast_rollback(c);
            c->fast_from = c->fb_base + end + 1; /* yajl reads the rest of the run */
            return fast_handback(c, in, after - 1, after > 1);
        }
        size_t next = end + 1; /* the next event's '{', as run_end found it */
        while (c->fb[next] != '{')
            next++;
        memmove(c->fb, c->fb + next, c->fb_n - next);
        c->fb_n -= next, c->fb_base += next;
        if (c->tty && c->fb_base >= c->next_report) {
            chrome_progress(c, c->total ? read_ahead_offset(in) : c->fb_base, 0);
            c->next_report += 8u << 20;
        }
    }
}
