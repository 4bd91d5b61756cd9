/* chrome_feed.c: the bytes' way into the yajl lane (chrome_feed: a chunk to yajl; damage to the resync,
 * chrome_resync.c; an event's '{' to the fast lane, chrome_fast.c, through chrome_fast_take), reading
 * strings of any length in linear time, and the progress line (see chrome_import.c). */
#include "chrome_internal.h"

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

/* yajl stopped at an event's '{', p[0]: the fast lane takes p[0..n) (the rest of what yajl was given).
 * Returns 3, or -1 out of memory. */
int chrome_fast_take(struct chrome *c, const unsigned char *p, size_t n)
{
    c->fast_switch = 0;
    yajl_free(c->h);
    c->h = NULL;
    size_t need = n > FAST_RUN ? n : FAST_RUN; /* the rest of a chunk: never more than FAST_RUN, but kept whole */
    if (need > c->fb_cap) {
        unsigned char *nb = realloc(c->fb ? c->fb - 1 : NULL, need + 1 + JSON_FAST_PADDING);
        if (!nb) {
            fprintf(c->err, "tracedb: out of memory\n");
            return -1;
        }
        c->fb = nb + 1, c->fb_cap = need;
    }
    memmove(c->fb, p, n);
    c->fb_n = n;
    c->fb_base = c->fast_at;
    return 3;
}

/* The progress line on a terminal: rewritten in place, ended with a newline when final. */
void chrome_progress(struct chrome *c, size_t done, int final)
{
    size_t total = c->total;
    if (total)
        fprintf(c->err, "\rtracedb: importing %s: %3d%%", c->file, (int)(done * 100 / total));
    else
        fprintf(c->err, "\rtracedb: importing %s: %zu MB", c->file, done >> 20);
    c->progress_open = !final;
    if (final)
        fputc('\n', c->err);
}
