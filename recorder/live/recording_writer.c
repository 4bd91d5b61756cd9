/* recording_writer.c: the live recorder's writer thread (see recording.c). It only copies: every 1 ms
 * while the rings are busy (10 ms otherwise) it appends what each thread's ring holds, as it is, to the
 * staging file (stage_format.h), one chunk per thread, and frees the ring. A write goes to the page
 * cache, a few hundred MB/s at least, so the writer keeps up with any program on any core count;
 * turning records into rows is the converter's job (recording_convert.c), off the program's path. */
#define _GNU_SOURCE
#include "recording_internal.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Appends one chunk (head + up to two runs of payload) whole, or nothing: a short write is completed,
 * a failed one cut off again. Caller holds stage_lock. */
static int rec_stage_write(struct tdb_recording *r, const struct iovec *iov, int n)
{
    if (r->stage_failed)
        return -1;
    int64_t at = atomic_load(&r->staged), end = at;
    struct iovec v[3];
    memcpy(v, iov, (size_t)n * sizeof *v);
    for (int i = 0; i < n; i++)
        end += (int64_t)v[i].iov_len;
    if (r->stage_max && end > r->stage_max) {
        fprintf(stderr, "tracedb: %s: the staging file reached TRACEDB_STAGE_MAX (%lld bytes): recording what is "
                        "staged so far; later events are dropped and counted\n", r->stage_path, (long long)r->stage_max);
        r->stage_failed = 1;
        return -1;
    }
    int64_t pos = at;
    int i = 0;
    while (i < n) {
        ssize_t k = pwritev(r->stage_fd, v + i, n - i, (off_t)pos);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            fprintf(stderr, "tracedb: %s: cannot stage events (%s): recording what is staged so far\n", r->stage_path,
                    k < 0 ? strerror(errno) : "no room");
            if (ftruncate(r->stage_fd, (off_t)at) != 0) { /* a torn chunk is ignored anyway */
            }
            r->stage_failed = 1;
            return -1;
        }
        pos += k;
        while (i < n && (size_t)k >= v[i].iov_len)
            k -= (ssize_t)v[i++].iov_len;
        if (i < n)
            v[i].iov_base = (char *)v[i].iov_base + k, v[i].iov_len -= (size_t)k;
    }
    atomic_store_explicit(&r->staged, end, memory_order_release);
    return 0;
}

int rec_stage_chunk(struct tdb_recording *r, uint32_t type, int64_t thread, const void *payload, size_t bytes)
{
    static const char zeros[8];
    size_t pad = (8 - bytes % 8) % 8;
    if (bytes + pad > UINT32_MAX)
        return -1;
    struct stage_chunk h = {type, (uint32_t)(bytes + pad), thread};
    struct iovec v[3] = {{&h, sizeof h}, {(void *)payload, bytes}, {(void *)zeros, pad}};
    pthread_mutex_lock(&r->stage_lock);
    int rc = rec_stage_write(r, v, 3);
    pthread_mutex_unlock(&r->stage_lock);
    return rc;
}

/* Reads a small /proc file of this process into out (NUL-terminated, trailing newline cut); its length. */
static size_t rec_proc_read(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(out, 1, cap - 1, f) : 0;
    if (f)
        fclose(f);
    out[n] = 0;
    if (n && out[n - 1] == '\n')
        out[--n] = 0;
    return n;
}

/* Thread t as the operating system knows it now (pthread_setname_np, as top shows it), or, once it
 * has exited, as it was when it first recorded. */
int rec_stage_thread(struct tdb_recording *r, struct rec_thread *t)
{
    char path[64];
    struct {
        struct stage_thread st;
        char name[256];
    } c;
    snprintf(path, sizeof path, "/proc/self/task/%lld/comm", (long long)t->os_tid);
    size_t n = rec_proc_read(path, c.name, sizeof c.name);
    if (!n)
        n = strlen(strcpy(c.name, t->os_name));
    c.st.os_tid = t->os_tid;
    c.st.name_len = (uint32_t)n;
    c.st.unused = 0;
    t->staged = 1;
    return rec_stage_chunk(r, STAGE_THREAD, t->number, &c, sizeof c.st + n);
}

/* The time-stamp counter and CLOCK_REALTIME read together (the counter between two clock reads, the
 * clock taken as their midpoint): what maps the records' stamps to nanoseconds. */
int rec_stage_clock(struct tdb_recording *r)
{
    struct stage_clock c;
    int64_t before = rec_now();
    c.tsc = rec_stamp();
    int64_t after = rec_now();
    c.ns = before + (after - before) / 2;
    return rec_stage_chunk(r, STAGE_CLOCK, 0, &c, sizeof c);
}

/* Appends what every ring holds to the staging file; *bytes says how much. One pass at a time (the
 * writer's and a tdb_flush on the program's thread would stage a ring's records twice, and free a retired
 * thread's ring twice). */
static int rec_stage_rings_locked(struct tdb_recording *r, size_t *bytes);

int rec_stage_rings(struct tdb_recording *r, size_t *bytes)
{
    pthread_mutex_lock(&r->drain_lock);
    int rc = rec_stage_rings_locked(r, bytes);
    pthread_mutex_unlock(&r->drain_lock);
    return rc;
}

static int rec_stage_rings_locked(struct tdb_recording *r, size_t *bytes)
{
    int clocked = !rec_use_tsc;
    for (struct rec_thread *t = atomic_load(&r->threads); t; t = t->next) {
        if (!t->ring.buf)
            continue; /* retired and freed */
        int retired = atomic_load_explicit(&t->ring.retired, memory_order_acquire);
        size_t tail = atomic_load_explicit(&t->ring.tail, memory_order_relaxed);
        size_t head = atomic_load_explicit(&t->ring.head, memory_order_acquire);
        if (tail != head && !clocked && (clocked = 1, rec_stage_clock(r) != 0))
            return -1; /* a fresh pair before this pass's records, all stamped before it */
        if (tail != head && !t->staged && rec_stage_thread(r, t) != 0)
            return -1;
        while (tail != head) { /* at most two runs: to the ring's end (a pad ends it), then from its start */
            size_t off = tail & (t->ring.size - 1), run = head - tail;
            if (run > t->ring.size - off)
                run = t->ring.size - off;
            struct stage_chunk h = {STAGE_RECORDS, (uint32_t)run, t->number};
            struct iovec v[2] = {{&h, sizeof h}, {t->ring.buf + off, run}};
            pthread_mutex_lock(&r->stage_lock);
            int rc = rec_stage_write(r, v, 2);
            pthread_mutex_unlock(&r->stage_lock);
            if (rc != 0)
                return -1; /* the ring stays full: the program's next records are dropped, and counted */
            tail += run;
            *bytes += run;
        }
        atomic_store_explicit(&t->ring.tail, tail, memory_order_release);
        if (retired) { /* its thread is gone and everything it wrote is staged */
            free(t->ring.buf);
            t->ring.buf = NULL;
        }
    }
    return 0;
}

void *rec_writer_main(void *arg)
{
    struct tdb_recording *r = arg;
    pthread_setname_np(pthread_self(), "tracedb-rec"); /* as top and perf show it */
    size_t staged = 0;
    pthread_mutex_lock(&r->lock);
    while (!r->stop) {
        rec_wait(r, staged >= STAGE_BUSY_BYTES ? STAGE_BUSY_NS : STAGE_IDLE_NS);
        if (r->stop)
            break;
        pthread_mutex_unlock(&r->lock);
        staged = 0;
        rec_stage_rings(r, &staged); /* a failure is said once; the rings then fill and drop, counted */
        pthread_mutex_lock(&r->lock);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}
