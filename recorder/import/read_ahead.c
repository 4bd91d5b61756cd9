/* read_ahead.c: the importer's input read ahead on a thread of its own (see read_ahead.h). The thread
 * fills a ring of blocks with gzread and stops at the end of the input or its first error; the reader
 * copies the blocks out in order and gives each back as it empties it. TRACEDB_READ_AHEAD=off reads on
 * the caller's thread always, =on reads ahead always (the tests compare the two). */
#define _GNU_SOURCE /* pthread_setname_np */
#include "read_ahead.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK ((unsigned)256 << 10)
#define STEP ((unsigned)32 << 10) /* one gzread: an error loses what inflated in that call (zlib's way), no more */
#define READ_AHEAD_BLOCKS 4
#define REFILL_AT 2 /* a thread waiting for room sleeps until this many blocks are free (fewer wake-ups) */
#define THREAD_FROM ((size_t)256 << 10) /* smaller inputs are read on the caller's thread */

struct read_ahead {
    gzFile gz;
    int threaded, joined;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;        /* a block filled or given back, the end, or quit */
    unsigned char *ring;        /* READ_AHEAD_BLOCKS blocks of BLOCK bytes */
    unsigned len[READ_AHEAD_BLOCKS];    /* the bytes a filled block holds */
    size_t offset[READ_AHEAD_BLOCKS];   /* gzoffset after it was read */
    uint64_t filled, taken;     /* blocks the thread filled, blocks the reader gave back (under lock) */
    int ended, end_n, quit;     /* the thread stopped: gzread's last result (0 the end, -1 an error) */
    int thread_waits, reader_waits; /* who sleeps on cond (the other wakes it only then) */
    /* the reader's own */
    uint64_t seen;              /* filled, as it last looked */
    unsigned pos;               /* its place in block taken % READ_AHEAD_BLOCKS */
    size_t given_offset;
};

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
        while ((got = gzread(r->gz, r->ring + slot * BLOCK + n, STEP)) > 0 && (n += (unsigned)got) < BLOCK)
            ;
        z_off_t off = n ? gzoffset(r->gz) : 0;
        pthread_mutex_lock(&r->lock);
        if (n) {
            r->len[slot] = n;
            r->offset[slot] = off > 0 ? (size_t)off : 0;
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

struct read_ahead *read_ahead_open(gzFile gz, size_t total)
{
    struct read_ahead *r = calloc(1, sizeof *r);
    if (!r) {
        gzclose(gz);
        return NULL;
    }
    r->gz = gz;
    const char *knob = getenv("TRACEDB_READ_AHEAD");
    /* by default: a big or unknown input, if gzip. Inflating is work to move off the parser's thread
     * (gzip -1 of the bench's 300 MB trace: 1.20-1.30x faster on 16 cores, 1.07x on 2). A plain file's
     * read(2) is not: its bytes then cross to the parser's core once more (0.84-0.86x on 16 cores). */
    int want = knob && strcmp(knob, "on") == 0    ? 1
             : knob && strcmp(knob, "off") == 0 ? 0
             : (total == 0 || total >= THREAD_FROM) && !gzdirect(gz);
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
        return gzread(r->gz, buf, n);
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

const char *read_ahead_error(struct read_ahead *r, int *zerr)
{
    join(r); /* it stopped at the end or the error: gz is this thread's again */
    return gzerror(r->gz, zerr);
}

size_t read_ahead_offset(struct read_ahead *r)
{
    if (r->threaded)
        return r->given_offset;
    z_off_t off = gzoffset(r->gz);
    return off > 0 ? (size_t)off : 0;
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
    free(r->ring);
    gzclose(r->gz);
    free(r);
}
