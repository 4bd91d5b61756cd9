/* cupti_inject.c: CUDA activity capture with no code change. CUDA loads the library named by
 * CUDA_INJECTION64_PATH at cuInit and calls InitializeInjection(); we register CUPTI activity buffers
 * (8 MiB, a new one per request); each completed buffer is translated into events (cupti_translate.c)
 * and staged as one chunk of the recording's staging file, to become rows with the rest; enable CONCURRENT_KERNEL (never KERNEL, which serializes
 * kernels), MEMCPY, MEMSET, MEMORY2, and at level 2 RUNTIME and DRIVER, flush every 100 ms and once
 * forced at exit (never in a forked child: it hangs), and count records CUPTI dropped.
 * Calls are recorded on their thread's system id, like NVTX ranges. No timestamp callback is registered (on CUDA 13.0 it can zero kernel timestamps).
 * Without a usable GPU, cuptiActivityEnable fails: we say so once and the program runs on. */
#define _GNU_SOURCE
#include "cupti_translate.h"
#include "recording.h"
#include "stage_convert.h"
#include "jsonbuf.h"
#include <cupti.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CUPTI_BUFFER_BYTES (8u << 20)

static struct cupti_translate cupti_tr;  /* one per process, as CUPTI's own subscriber is */
static pid_t cupti_pid;
static size_t cupti_dropped;

static const char *cupti_api_name(void *ctx, int driver, uint32_t cbid)
{
    (void)ctx;
    const char *name = NULL;
    if (cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) != CUPTI_SUCCESS)
        return NULL;
    return name;
}

static void CUPTIAPI cupti_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, CUPTI_BUFFER_BYTES);
    *size = *buffer ? CUPTI_BUFFER_BYTES : 0;
    *max_records = 0;
}

/* CUPTI's records of one buffer, translated into complete events (names copied: a record's name
 * pointer means nothing after the process ends) and staged as one chunk. */
static int cupti_stage_event(void *arg, int64_t pid, int64_t tid, const struct tdb_event *ev)
{
    return stage_event_encode(arg, pid, tid, ev);
}

static void CUPTIAPI cupti_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)size;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* completions may come on several threads */
    static struct buf staged;                                 /* reused, as large as the largest buffer */
    CUpti_Activity *rec = NULL;
    pthread_mutex_lock(&lock);
    staged.n = 0;
    cupti_tr.emit = cupti_stage_event;
    cupti_tr.emit_arg = &staged;
    int rc = 0;
    while (rc == 0 && valid && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS)
        rc = cupti_translate_record(&cupti_tr, rec);
    if (rc == 0 && staged.n)
        tdb_recording_stage_events(tdb_current(), staged.p, staged.n);
    pthread_mutex_unlock(&lock);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
        __atomic_add_fetch(&cupti_dropped, dropped, __ATOMIC_RELAXED);
    free(buffer);
}

static void cupti_at_exit(void)
{
    if (getpid() != cupti_pid) /* a forked child: a forced flush would hang */
        return;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (cupti_dropped)
        fprintf(stderr, "tracedb: CUPTI dropped %zu activity records (its buffers were full)\n", cupti_dropped);
}

int InitializeInjection(void); /* CUDA looks this up by name */

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    if (!tdb_current()) /* opened from TRACEDB_OUTPUT by the library's constructor */
        return 1;
    cupti_pid = getpid();
    cupti_tr.pid = cupti_pid;
    cupti_tr.api_name = cupti_api_name;
    const char *level = getenv("TRACEDB_LEVEL");
    CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_MEMSET,            CUPTI_ACTIVITY_KIND_MEMORY2,
                                  CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_DRIVER};
    size_t nkinds = level && atoi(level) == 1 ? 4 : 6;
    /* calls on the thread's system id (gettid), as NVTX ranges and the C API record theirs, so a call
     * nests under the operator or range that made it; CUPTI's default is pthread_self() */
    CUptiResult rc = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    if (rc == CUPTI_SUCCESS)
        rc = cuptiActivityRegisterCallbacks(cupti_buffer_requested, cupti_buffer_completed);
    for (size_t i = 0; rc == CUPTI_SUCCESS && i < nkinds; i++)
        rc = cuptiActivityEnable(kinds[i]);
    if (rc != CUPTI_SUCCESS) {
        const char *why = "unknown error";
        cuptiGetResultString(rc, &why);
        fprintf(stderr, "tracedb: no usable GPU for CUDA activity capture (CUPTI: %s, %d)%s; recording the rest\n", why,
                (int)rc, rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? " -- another profiler (nsys, ncu, torch.profiler) holds CUPTI" : "");
        return 1;
    }
    cuptiActivityFlushPeriod(100);
    atexit(cupti_at_exit);
    return 1;
}
