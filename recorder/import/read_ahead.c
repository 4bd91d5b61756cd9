/* read_ahead.c: the importer's input (see read_ahead.h): read(2), and for gzip zlib's inflate() member
 * after member, on the caller's thread or on one of its own that fills a ring of blocks ahead of the
 * reader, which copies them out in order and gives each back as it empties it. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "read_ahead.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define RAW_BYTES ((size_t)128 << 10) /* read(2) at a time, for inflate */
#define BLOCK ((unsigned)256 << 10)
#define STEP ((unsigned)64 << 10)      /* the thread's reads into a block */
#define READ_AHEAD_BLOCKS 4
#define REFILL_AT 2 /* a thread waiting for room sleeps until this many blocks are free (fewer wake-ups) */
#define THREAD_FROM ((size_t)256 << 10) /* smaller inputs are read on the caller's thread */

/* The input as bytes of the trace: plain, or inflated. Used by one thread at a time. */
struct source {
    int fd;
    int gzip;            /* it starts with gzip's magic bytes */
    z_stream z;          /* gzip: next_in/avail_in are raw's bytes not inflated yet */
    int z_ready;
    int member_end;      /* a member just ended: another may follow */
    unsigned char *raw;  /* RAW_BYTES */
    size_t plain_at, plain_n; /* plain: raw's bytes not given yet (the first read's) */
    int eof;             /* read(2) said the end */
    int stopped;         /* nothing more comes: end says why */
    enum read_ahead_end end;
    char msg[160];
    size_t raw_off;      /* bytes read from the file */
};

struct read_ahead {
    struct source src;
    int threaded, joined;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;        /* a block filled or given back, the end, or quit */
    unsigned char *ring;        /* READ_AHEAD_BLOCKS blocks of BLOCK bytes */
    unsigned len[READ_AHEAD_BLOCKS];    /* the bytes a filled block holds */
    size_t offset[READ_AHEAD_BLOCKS];   /* the file offset its last byte came from, about */
    uint64_t filled, taken;     /* blocks the thread filled, blocks the reader gave back (under lock) */
    int ended, end_n, quit;     /* the thread stopped: the source's last result (0 the end, -1 an error) */
    int thread_waits, reader_waits; /* who sleeps on cond (the other wakes it only then) */
    /* the reader's own */
    uint64_t seen;              /* filled, as it last looked */
    unsigned pos;               /* its place in block taken % READ_AHEAD_BLOCKS */
    size_t given_offset;
};

static void stop(struct source *s, enum read_ahead_end end, const char *msg)
{
    s->stopped = 1, s->end = end;
    snprintf(s->msg, sizeof s->msg, "%s", msg ? msg : "");
}

/* One read(2) into p (n bytes at most): the count, 0 at the end, -1 (stopped) on an error. */
static ssize_t raw_read(struct source *s, unsigned char *p, size_t n)
{
    ssize_t got;
    while ((got = read(s->fd, p, n)) < 0 && errno == EINTR)
        ;
    if (got < 0)
        stop(s, READ_AHEAD_IO, strerror(errno));
    else if (got == 0)
        s->eof = 1;
    else
        s->raw_off += (size_t)got;
    return got;
}

/* Reads more raw bytes after the avail_in not inflated yet (moved to raw's start). 0, or -1. */
static int refill(struct source *s)
{
    if (s->z.avail_in && s->z.next_in != s->raw)
        memmove(s->raw, s->z.next_in, s->z.avail_in);
    s->z.next_in = s->raw;
    if (s->z.avail_in == RAW_BYTES) { /* inflate took none of a full buffer: cannot be */
        stop(s, READ_AHEAD_DAMAGED, "inflate makes no progress");
        return -1;
    }
    ssize_t got = raw_read(s, s->raw + s->z.avail_in, RAW_BYTES - s->z.avail_in);
    if (got < 0)
        return -1;
    s->z.avail_in += (uInt)got;
    return 0;
}

/* The first bytes: gzip or not. 0, or -1 (out of memory; a read error is the first read's result). */
static int source_open(struct source *s, int fd)
{
    s->fd = fd;
    if (!(s->raw = malloc(RAW_BYTES)))
        return -1;
    s->z.next_in = s->raw;
    while (s->z.avail_in < 2 && !s->eof && !s->stopped) /* (a pipe may give one byte at a time) */
        refill(s);
    s->gzip = s->z.avail_in >= 2 && s->raw[0] == 0x1f && s->raw[1] == 0x8b;
    if (!s->gzip) {
        s->plain_at = 0, s->plain_n = s->z.avail_in;
        return 0;
    }
    if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) /* gzip members only */
        return -1;
    s->z_ready = 1;
    return 0;
}

/* Up to n bytes of the trace into out: the count, 0 at the end (or a truncated member: end says), -1 on
 * an error, once every byte before it was given (gzread's results, but no byte before damage lost). */
static int source_read(struct source *s, unsigned char *out, unsigned n)
{
    unsigned done = 0;
    if (!s->gzip) {
        while (done < n && !s->stopped) {
            if (s->plain_n) {
                unsigned k = s->plain_n < n - done ? (unsigned)s->plain_n : n - done;
                memcpy(out + done, s->raw + s->plain_at, k);
                s->plain_at += k, s->plain_n -= k, done += k;
                continue;
            }
            if (s->eof) {
                stop(s, READ_AHEAD_WHOLE, NULL);
                break;
            }
            ssize_t got = raw_read(s, out + done, n - done);
            if (got > 0)
                done += (unsigned)got;
        }
    } else {
        s->z.next_out = out, s->z.avail_out = n;
        while (s->z.avail_out && !s->stopped) {
            if (s->member_end) { /* another member, or the end (what follows that is not one: ignored) */
                if (s->z.avail_in < 2 && !s->eof) {
                    refill(s);
                    continue;
                }
                if (s->z.avail_in < 2 || s->z.next_in[0] != 0x1f || s->z.next_in[1] != 0x8b) {
                    stop(s, READ_AHEAD_WHOLE, NULL);
                    break;
                }
                inflateReset(&s->z);
                s->member_end = 0;
            }
            if (s->z.avail_in == 0) {
                if (s->eof) {
                    stop(s, READ_AHEAD_TRUNCATED, "unexpected end of file");
                    break;
                }
                refill(s);
                continue;
            }
            uInt in = s->z.avail_in, room = s->z.avail_out;
            int rc = inflate(&s->z, Z_NO_FLUSH);
            if (rc == Z_STREAM_END)
                s->member_end = 1;
            else if (rc != Z_OK && rc != Z_BUF_ERROR)
                stop(s, READ_AHEAD_DAMAGED, s->z.msg ? s->z.msg : zError(rc));
            else if (s->z.avail_in == in && s->z.avail_out == room) { /* it needs more than the bytes at hand */
                if (s->eof)
                    stop(s, READ_AHEAD_TRUNCATED, "unexpected end of file");
                else
                    refill(s);
            }
        }
        done = n - s->z.avail_out;
    }
    if (done)
        return (int)done;
    return s->end == READ_AHEAD_DAMAGED || s->end == READ_AHEAD_IO ? -1 : 0;
}

/* Closes the input and frees what source_open made. */
static void source_close(struct source *s)
{
    if (s->z_ready)
        inflateEnd(&s->z);
    close(s->fd);
    free(s->raw);
}

static size_t source_offset(const struct source *s)
{
    return s->raw_off - (s->gzip ? s->z.avail_in : s->plain_n);
}

static void *ahead_main(void *arg)
{
    struct read_ahead *r = arg;
    pthread_setname_np(pthread_self(), "tracedb-read");
    pthread_mutex_lock(&r->lock);
    for (;;) {
        if (r->filled - r->taken == READ_AHEAD_BLOCKS) {
            r->thread_waits = 1;
            while (!r->quit && r->filled - r->taken > READ_AHEAD_BLOCKS - REFILL_AT)
                pthread_cond_wait(&r->cond, &r->lock);
            r->thread_waits = 0;
        }
        if (r->quit)
            break;
        size_t slot = (size_t)(r->filled % READ_AHEAD_BLOCKS);
        pthread_mutex_unlock(&r->lock); /* the slot is the thread's until filled moves past it */
        unsigned n = 0;
        int got;
        while ((got = source_read(&r->src, r->ring + slot * BLOCK + n, STEP)) > 0 && (n += (unsigned)got) < BLOCK)
            ;
        size_t off = source_offset(&r->src);
        pthread_mutex_lock(&r->lock);
        if (n) {
            r->len[slot] = n;
            r->offset[slot] = off;
            r->filled++;
        }
        if (got <= 0)
            r->ended = 1, r->end_n = got < 0 ? -1 : 0;
        if (r->reader_waits)
            pthread_cond_broadcast(&r->cond);
        if (r->ended)
            break;
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

/* The CPUs this process may run on (its affinity mask: a container's share, not the machine's). */
static int cpus_usable(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

struct read_ahead *read_ahead_open(int fd, size_t total)
{
    struct read_ahead *r = calloc(1, sizeof *r);
    if (!r) {
        close(fd);
        return NULL;
    }
    if (source_open(&r->src, fd) != 0) {
        source_close(&r->src);
        free(r);
        return NULL;
    }
    const char *knob = getenv("TRACEDB_READ_AHEAD");
    /* by default: gzip, big or of unknown size (inflating is work to move off the parser's thread; a
     * plain file's read(2) is not: see read_ahead.h), with a third CPU to inflate on */
    int want = knob && strcmp(knob, "on") == 0    ? 1
             : knob && strcmp(knob, "off") == 0 ? 0
             : r->src.gzip && (total == 0 || total >= THREAD_FROM) && cpus_usable() >= 3;
    if (!want || !(r->ring = malloc((size_t)READ_AHEAD_BLOCKS * BLOCK)))
        return r; /* read on this thread (out of memory for the ring: so too) */
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cond, NULL);
    if (pthread_create(&r->thread, NULL, ahead_main, r) != 0) {
        pthread_mutex_destroy(&r->lock);
        pthread_cond_destroy(&r->cond);
        free(r->ring);
        r->ring = NULL;
        return r;
    }
    r->threaded = 1;
    return r;
}

int read_ahead_read(struct read_ahead *r, void *buf, unsigned n)
{
    if (!r->threaded)
        return source_read(&r->src, buf, n);
    unsigned done = 0;
    while (done < n) {
        if (r->taken == r->seen) { /* every block seen is given back: wait for the next, or the end */
            pthread_mutex_lock(&r->lock);
            r->reader_waits = 1;
            while (r->filled == r->taken && !r->ended)
                pthread_cond_wait(&r->cond, &r->lock);
            r->reader_waits = 0;
            r->seen = r->filled;
            pthread_mutex_unlock(&r->lock);
            if (r->taken == r->seen)
                break; /* the end (or an error), every byte before it given */
        }
        size_t slot = (size_t)(r->taken % READ_AHEAD_BLOCKS);
        unsigned k = r->len[slot] - r->pos;
        if (k > n - done)
            k = n - done;
        memcpy((unsigned char *)buf + done, r->ring + slot * BLOCK + r->pos, k);
        done += k, r->pos += k;
        if (r->pos == r->len[slot]) {
            r->given_offset = r->offset[slot];
            r->pos = 0;
            pthread_mutex_lock(&r->lock);
            r->taken++;
            if (r->thread_waits && r->filled - r->taken <= READ_AHEAD_BLOCKS - REFILL_AT)
                pthread_cond_broadcast(&r->cond);
            pthread_mutex_unlock(&r->lock);
        }
    }
    return done ? (int)done : r->end_n;
}

/* Waits for the thread to end (it has, or is told to). */
static void join(struct read_ahead *r)
{
    if (!r->threaded || r->joined)
        return;
    pthread_mutex_lock(&r->lock);
    r->quit = 1;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    r->joined = 1;
}

enum read_ahead_end read_ahead_end(struct read_ahead *r, const char **msg)
{
    join(r); /* it stopped at the end or the error: the source is this thread's again */
    if (msg)
        *msg = r->src.msg;
    return r->src.stopped ? r->src.end : READ_AHEAD_WHOLE;
}

size_t read_ahead_offset(struct read_ahead *r)
{
    return r->threaded ? r->given_offset : source_offset(&r->src);
}

void read_ahead_close(struct read_ahead *r)
{
    if (!r)
        return;
    join(r);
    if (r->threaded) {
        pthread_mutex_destroy(&r->lock);
        pthread_cond_destroy(&r->cond);
    }
    source_close(&r->src);
    free(r->ring);
    free(r);
}
