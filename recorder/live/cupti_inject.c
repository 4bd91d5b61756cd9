/* cupti_inject.c: CUDA activity capture with no code change. CUDA loads the library named by
 * CUDA_INJECTION64_PATH at cuInit and calls InitializeInjection(); we register CUPTI activity buffers
 * (8 MiB, a new one per request); each completed buffer is translated into events (cupti_translate.c)
 * and staged as one chunk of the recording's staging file, to become rows with the rest; enable CONCURRENT_KERNEL (never KERNEL, which serializes
 * kernels), MEMCPY, MEMSET, MEMORY2, and at level 2 RUNTIME and DRIVER, flush every 100 ms and once
 * forced at exit (never in a forked child: it hangs), and count records CUPTI dropped.
 * At exit, GPU work the program left running is waited for first (up to 10 s: a program that
 * returns from main without synchronizing would otherwise lose its last kernels, still running when
 * CUPTI is flushed), with our own driver calls kept out of the recording. Buffers CUPTI took and never
 * gave back went to another client: a profiler inside the program (torch.profiler, Kineto)
 * registering its own callbacks takes over CUPTI's buffers; we say so rather than print a quiet
 * recording with its GPU work missing.
 * Calls are recorded on their thread's system id, like NVTX ranges. No timestamp callback is
 * registered (on CUDA 13.0 it can zero kernel timestamps).
 * Without a usable GPU, cuptiActivityEnable fails: we say so once and the program runs on. */
#define _GNU_SOURCE
#include "cupti_translate.h"
#include "recording.h"
#include "stage_convert.h"
#include "jsonbuf.h"
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CUPTI_BUFFER_BYTES (8u << 20)

static struct cupti_translate cupti_tr;  /* one per process, as CUPTI's own subscriber is */
static pid_t cupti_pid;
static size_t cupti_dropped;
static size_t cupti_buffers_out; /* handed to CUPTI and not given back yet */

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
    if (*buffer)
        __atomic_add_fetch(&cupti_buffers_out, 1, __ATOMIC_RELAXED);
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
    __atomic_sub_fetch(&cupti_buffers_out, 1, __ATOMIC_RELAXED);
    free(buffer);
}

/* The driver's entry points, from the libcuda that loaded us (never linked: NVTX loads this library in
 * programs without CUDA too). */
typedef CUresult (*cu_int_fn)(int *);
typedef CUresult (*cu_dev_get_fn)(CUdevice *, int);
typedef CUresult (*cu_state_fn)(CUdevice, unsigned *, int *);
typedef CUresult (*cu_retain_fn)(CUcontext *, CUdevice);
typedef CUresult (*cu_release_fn)(CUdevice);
typedef CUresult (*cu_ctx_fn)(CUcontext);
typedef CUresult (*cu_ctx_out_fn)(CUcontext *);
typedef CUresult (*cu_void_fn)(void);

static pthread_mutex_t wait_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wait_cond = PTHREAD_COND_INITIALIZER;
static int wait_done;

/* Every active primary context synchronized: the GPU work the program left running is done. */
static void *cupti_sync_devices(void *arg)
{
    void *cuda = arg;
    cu_int_fn count = (cu_int_fn)dlsym(cuda, "cuDeviceGetCount");
    cu_dev_get_fn get = (cu_dev_get_fn)dlsym(cuda, "cuDeviceGet");
    cu_state_fn state = (cu_state_fn)dlsym(cuda, "cuDevicePrimaryCtxGetState");
    cu_retain_fn retain = (cu_retain_fn)dlsym(cuda, "cuDevicePrimaryCtxRetain");
    cu_release_fn release = (cu_release_fn)dlsym(cuda, "cuDevicePrimaryCtxRelease_v2");
    cu_ctx_fn push = (cu_ctx_fn)dlsym(cuda, "cuCtxPushCurrent_v2");
    cu_ctx_out_fn pop = (cu_ctx_out_fn)dlsym(cuda, "cuCtxPopCurrent_v2");
    cu_void_fn sync = (cu_void_fn)dlsym(cuda, "cuCtxSynchronize");
    int n = 0;
    if (count && get && state && retain && release && push && pop && sync && count(&n) == CUDA_SUCCESS)
        for (int i = 0; i < n; i++) {
            CUdevice dev;
            unsigned flags;
            int active = 0;
            CUcontext ctx, old;
            if (get(&dev, i) != CUDA_SUCCESS || state(dev, &flags, &active) != CUDA_SUCCESS || !active ||
                retain(&ctx, dev) != CUDA_SUCCESS)
                continue;
            if (push(ctx) == CUDA_SUCCESS) {
                sync();
                pop(&old);
            }
            release(dev);
        }
    pthread_mutex_lock(&wait_lock);
    wait_done = 1;
    pthread_cond_signal(&wait_cond);
    pthread_mutex_unlock(&wait_lock);
    return NULL;
}

/* Waits up to `seconds` for the program's GPU work to end; says so when it is still running. */
static void cupti_wait_for_gpu(int seconds)
{
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!cuda)
        return;
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME); /* our own calls are not the program's */
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
    pthread_t th;
    if (pthread_create(&th, NULL, cupti_sync_devices, cuda) != 0) {
        dlclose(cuda);
        return;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += seconds;
    int rc = 0;
    pthread_mutex_lock(&wait_lock);
    while (!wait_done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&wait_cond, &wait_lock, &until);
    int done = wait_done;
    pthread_mutex_unlock(&wait_lock);
    if (done) {
        pthread_join(th, NULL);
        dlclose(cuda);
    } else { /* a kernel that never ends: the program exits with it, and so do we */
        pthread_detach(th);
        fprintf(stderr, "tracedb: the program's GPU work was still running %d s after it exited: "
                        "the kernels still running are not recorded\n", seconds);
    }
}

static void cupti_at_exit(void)
{
    if (getpid() != cupti_pid) /* a forked child: a forced flush would hang */
        return;
    cupti_wait_for_gpu(10);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (cupti_dropped)
        fprintf(stderr, "tracedb: CUPTI dropped %zu activity records (its buffers were full)\n", cupti_dropped);
    size_t lost = __atomic_load_n(&cupti_buffers_out, __ATOMIC_RELAXED);
    if (lost)
        fprintf(stderr, "tracedb: another CUPTI client in this program (torch.profiler, Kineto, ...) took over "
                        "CUDA activity: %zu of our buffers never came back, so the GPU work they held, and all "
                        "after, is missing; record without the program's own profiler\n", lost);
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
