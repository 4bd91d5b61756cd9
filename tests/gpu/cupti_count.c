/* cupti_count.c: CUPTI's own count of a program's activity records, independent of tracedb's
 * translation and storage: an injection library (CUDA_INJECTION64_PATH=libcupti_count.so) that
 * enables the same activity kinds as tracedb's recorder, counts every record by kind (kernels also
 * by name) and prints the counts at exit, with CUPTI's own count of records it dropped.
 * Used by tests/gpu/check.sh on a machine with a GPU; tracedb's rows must equal these counts. */
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_BYTES (8u << 20)
#define MAX_NAMES 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long kernels, memcpys, memsets, memories, runtimes, drivers, others, dropped;
static struct {
    char name[160];
    unsigned long long n;
} names[MAX_NAMES];
static int nnames;

static void count_name(const char *name)
{
    for (int i = 0; i < nnames; i++)
        if (strcmp(names[i].name, name) == 0) {
            names[i].n++;
            return;
        }
    if (nnames < MAX_NAMES) {
        snprintf(names[nnames].name, sizeof names[nnames].name, "%s", name);
        names[nnames++].n = 1;
    }
}

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, BUF_BYTES);
    *size = *buffer ? BUF_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)size;
    CUpti_Activity *rec = NULL;
    pthread_mutex_lock(&lock);
    while (valid && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL:
            kernels++;
            count_name(((CUpti_ActivityKernel10 *)rec)->name);
            break;
        case CUPTI_ACTIVITY_KIND_MEMCPY: memcpys++; break;
        case CUPTI_ACTIVITY_KIND_MEMSET: memsets++; break;
        case CUPTI_ACTIVITY_KIND_MEMORY2: memories++; break;
        case CUPTI_ACTIVITY_KIND_RUNTIME: runtimes++; break;
        case CUPTI_ACTIVITY_KIND_DRIVER: drivers++; break;
        default: others++; break;
        }
    }
    size_t d = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &d) == CUPTI_SUCCESS)
        dropped += d;
    pthread_mutex_unlock(&lock);
    free(buffer);
}

static void at_exit(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&lock);
    const char *path = getenv("CUPTI_COUNT_OUT");
    FILE *f = path ? fopen(path, "w") : stderr;
    if (!f)
        f = stderr;
    fprintf(f, "kernel %llu\nmemcpy %llu\nmemset %llu\nmemory %llu\nruntime %llu\ndriver %llu\nother %llu\ndropped %llu\n",
            kernels, memcpys, memsets, memories, runtimes, drivers, others, dropped);
    for (int i = 0; i < nnames; i++)
        fprintf(f, "name %llu %s\n", names[i].n, names[i].name);
    if (f != stderr)
        fclose(f);
    pthread_mutex_unlock(&lock);
}

int InitializeInjection(void);

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    const char *level = getenv("CUPTI_COUNT_LEVEL");
    CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_MEMSET,            CUPTI_ACTIVITY_KIND_MEMORY2,
                                  CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_DRIVER};
    size_t nkinds = level && atoi(level) == 1 ? 4 : 6;
    CUptiResult rc = cuptiActivityRegisterCallbacks(requested, completed);
    for (size_t i = 0; rc == CUPTI_SUCCESS && i < nkinds; i++)
        rc = cuptiActivityEnable(kinds[i]);
    if (rc != CUPTI_SUCCESS) {
        const char *why = "?";
        cuptiGetResultString(rc, &why);
        fprintf(stderr, "cupti_count: %s\n", why);
        return 1;
    }
    atexit(at_exit);
    return 1;
}
