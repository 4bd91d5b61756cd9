/* nvtx_steps.c: an NVTX program whose steps are ranges (as under PyTorch's emit_nvtx, or a C++ trainer's),
 * for tests/unit/test_record_options.c (tracedb record --schedule --step). No tracedb code in it.
 *   nvtx_steps N NAME [push|threads|start|domain|killed]
 * N steps; step k is a range named NAME with its %d replaced by k ("ProfilerStep#%d"). Before each step
 * range a mark "load" (what comes between two steps), inside it a range "work" holding a mark "m"; after the
 * last step a mark "tail". How the step range is made:
 *   push (default)  pushed and popped on the main thread
 *   threads         pushed and popped, load, work and all, on a thread of its own (one per step)
 *   start           started on the main thread (nvtxRangeStartA) and ended on another (nvtxRangeEnd)
 *   domain          pushed and popped in the domain "steps" ("work" is in the default domain)
 *   killed          pushed and popped on the main thread; after the last step, no "tail": the program waits
 *                   300 ms (past the recorder's commits) and kills itself with SIGKILL, never closing */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *format, *mode = "push";
static nvtxDomainHandle_t domain;

static void work(void)
{
    nvtxRangePushA("work");
    nvtxMarkA("m");
    nvtxRangePop();
}

static void *ender(void *arg)
{
    nvtxRangeEnd(*(nvtxRangeId_t *)arg);
    return NULL;
}

static void *step(void *arg)
{
    char name[256];
    snprintf(name, sizeof name, format, *(int *)arg);
    nvtxMarkA("load");
    if (strcmp(mode, "start") == 0) {
        nvtxRangeId_t id = nvtxRangeStartA(name);
        work();
        pthread_t t;
        pthread_create(&t, NULL, ender, &id);
        pthread_join(t, NULL);
    } else if (strcmp(mode, "domain") == 0) {
        nvtxEventAttributes_t a = {0};
        a.version = NVTX_VERSION;
        a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = name;
        nvtxDomainRangePushEx(domain, &a);
        work();
        nvtxDomainRangePop(domain);
    } else {
        nvtxRangePushA(name);
        work();
        nvtxRangePop();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3 || !strstr(argv[2], "%d")) {
        fprintf(stderr, "usage: nvtx_steps N NAME-WITH-%%d [push|threads|start|domain|killed]\n");
        return 2;
    }
    int n = atoi(argv[1]);
    format = argv[2];
    if (argc > 3)
        mode = argv[3];
    domain = nvtxDomainCreateA("steps");
    for (int k = 1; k <= n; k++) {
        if (strcmp(mode, "threads") == 0) {
            pthread_t t;
            pthread_create(&t, NULL, step, &k);
            pthread_join(t, NULL);
        } else {
            step(&k);
        }
    }
    if (strcmp(mode, "killed") == 0) {
        nanosleep(&(struct timespec){.tv_nsec = 300000000}, NULL);
        raise(SIGKILL);
    }
    nvtxMarkA("tail");
    return 0;
}
