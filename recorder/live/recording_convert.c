/* recording_convert.c: the live recorder's converter thread (see recording.c). In the background, at
 * nice 19 (a core the program leaves idle is its own; on a core the program wants, it gets about 1.5%),
 * it turns what the writer has staged into rows (stage_convert.c), committing every 100 ms and after
 * each 4 MiB of staged records, so that reports can read a running recording (WAL). Its lag is what is
 * staged and not converted yet: about 100 ms while a core is free; while the program keeps every core
 * busy it grows, and closing converts the rest at the program's own priority. Nothing is dropped for
 * it: the staging file holds what the converter has not reached. */
#define _GNU_SOURCE
#include "recording_internal.h"
#include "stage_convert.h"
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int rec_convert_staged(struct tdb_recording *r, int64_t limit)
{
    if (r->convert_failed)
        return -1;
    int64_t to = atomic_load_explicit(&r->staged, memory_order_acquire);
    if (to == r->converted)
        return 0;
    int64_t at = stage_conv_file(r->conv, r->stage_fd, r->converted, to, limit, stderr, r->stage_path);
    if (at < 0) {
        r->convert_failed = 1;
        return -1;
    }
    r->converted = at;
    return 0;
}

void *rec_converter_main(void *arg)
{
    struct tdb_recording *r = arg;
    pthread_setname_np(pthread_self(), "tracedb-convert");
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19); /* this thread only (Linux) */
    int behind = 0;
    pthread_mutex_lock(&r->lock);
    while (!r->stop_converting) {
        if (!behind)
            rec_wait(r, CONVERT_EVERY_NS);
        if (r->stop_converting)
            break;
        pthread_mutex_unlock(&r->lock);
        pthread_mutex_lock(&r->ingest);
        int64_t before = r->converted;
        if (rec_convert_staged(r, CONVERT_PASS_BYTES) == 0 && r->converted != before && tdb_ingest_commit(r->ing) != 0)
            r->convert_failed = 1;
        behind = !r->convert_failed && r->converted - before >= CONVERT_PASS_BYTES / 2;
        r->last_commit = rec_now();
        pthread_mutex_unlock(&r->ingest);
        pthread_mutex_lock(&r->lock);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

int rec_flush(struct tdb_recording *r)
{
    if (r->owner != getpid())
        return -1;
    size_t bytes = 0;
    int rc = rec_stage_rings(r, &bytes);
    pthread_mutex_lock(&r->ingest);
    if (rc == 0)
        rc = rec_convert_staged(r, -1);
    if (rc == 0)
        rc = tdb_ingest_commit(r->ing);
    r->last_commit = rec_now();
    pthread_mutex_unlock(&r->ingest);
    return rc;
}
