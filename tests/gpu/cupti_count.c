/* cupti_count.c: CUPTI's own count of a program's activity records, independent of tracedb's
 * translation and storage: an injection library (CUDA_INJECTION64_PATH=libcupti_count.so) that
 * enables the same activity kinds as tracedb's recorder (CUPTI_COUNT_LEVEL=1: without runtime and
 * driver calls, as `tracedb record --level 1`), counts every record by kind and kernels also by name,
 * and writes the counts at exit to CUPTI_COUNT_OUT (else stderr), one per line:
 *   level N                        the level the kinds were enabled at
 *   KIND N                         kernel memcpy memset memory runtime driver other: always all seven
 *   memory_other N                 MEMORY2 records neither an allocation nor a release
 *   dropped N                      the records CUPTI said it dropped: always written
 *   name N MANGLED DEMANGLED       kernels by name, as CUPTI gave it (no spaces) and demangled by
 *                                  libstdc++'s demangler (the name itself where it is not mangled)
 *   error WHY                      CUPTI refused: nothing was counted (written at once)
 * Used by tests/gpu/check.sh on a machine with a GPU; tracedb's rows must equal these counts. */
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF_BYTES (8u << 20)

/* libstdc++'s demangler (C ABI; linked with -lstdc++) */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long kernels, memcpys, memsets, memories, memory_others, runtimes, drivers, others, dropped;
static struct kernel_name {
    char *name; /* as CUPTI gave it, copied whole */
    unsigned long long n;
} *names;
static size_t nnames, names_room, last_name;
static int level = 2;
static pid_t owner; /* the process that loaded us: a forked child writes nothing */

static void count_name(const char *name)
{
    if (!name)
        name = "";
    if (last_name < nnames && strcmp(names[last_name].name, name) == 0) { /* a burst: one name again and again */
        names[last_name].n++;
        return;
    }
    for (size_t i = 0; i < nnames; i++)
        if (strcmp(names[i].name, name) == 0) {
            names[i].n++;
            last_name = i;
            return;
        }
    if (nnames == names_room) {
        size_t room = names_room ? 2 * names_room : 256;
        struct kernel_name *grown = realloc(names, room * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "cupti_count: out of memory for kernel names\n");
            abort();
        }
        names = grown, names_room = room;
    }
    names[nnames].name = strdup(name);
    if (!names[nnames].name) {
        fprintf(stderr, "cupti_count: out of memory for kernel names\n");
        abort();
    }
    names[nnames].n = 1;
    last_name = nnames++;
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
        case CUPTI_ACTIVITY_KIND_MEMORY2: {
            CUpti_ActivityMemoryOperationType op = ((CUpti_ActivityMemory4 *)rec)->memoryOperationType;
            if (op == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION || op == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
                memories++;
            else
                memory_others++;
            break;
        }
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

static FILE *open_out(void)
{
    const char *path = getenv("CUPTI_COUNT_OUT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (path && !f)
        fprintf(stderr, "cupti_count: cannot write %s; the counts go to stderr\n", path);
    return f ? f : stderr;
}

static void write_name(FILE *f, const struct kernel_name *k)
{
    int status = -1;
    char *demangled = k->name[0] ? __cxa_demangle(k->name, NULL, NULL, &status) : NULL;
    const char *readable = status == 0 && demangled ? demangled : k->name[0] ? k->name : "(unnamed kernel)";
    fprintf(f, "name %llu %s %s\n", k->n, k->name[0] ? k->name : "-", readable);
    free(demangled);
}

static void at_exit(void)
{
    if (getpid() != owner) /* a forked child (a DataLoader worker): its parent writes the counts */
        return;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&lock);
    FILE *f = open_out();
    fprintf(f, "level %d\nkernel %llu\nmemcpy %llu\nmemset %llu\nmemory %llu\nruntime %llu\ndriver %llu\nother %llu\n"
               "memory_other %llu\ndropped %llu\n",
            level, kernels, memcpys, memsets, memories, runtimes, drivers, others, memory_others, dropped);
    for (size_t i = 0; i < nnames; i++)
        write_name(f, &names[i]);
    if (f != stderr)
        fclose(f);
    pthread_mutex_unlock(&lock);
}

int InitializeInjection(void);

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    const char *env = getenv("CUPTI_COUNT_LEVEL");
    level = env && atoi(env) == 1 ? 1 : 2;
    owner = getpid();
    CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_MEMSET,            CUPTI_ACTIVITY_KIND_MEMORY2,
                                  CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_DRIVER};
    size_t nkinds = level == 1 ? 4 : 6;
    CUptiResult rc = cuptiActivityRegisterCallbacks(requested, completed);
    for (size_t i = 0; rc == CUPTI_SUCCESS && i < nkinds; i++)
        rc = cuptiActivityEnable(kinds[i]);
    if (rc != CUPTI_SUCCESS) {
        const char *why = "?";
        cuptiGetResultString(rc, &why);
        fprintf(stderr, "cupti_count: %s\n", why);
        FILE *f = open_out(); /* the check reads why rather than finding no file */
        fprintf(f, "error CUPTI refused to count (%s, %d)\n", why, (int)rc);
        if (f != stderr)
            fclose(f);
        return 1;
    }
    atexit(at_exit);
    return 1;
}
