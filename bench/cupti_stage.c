/* cupti_stage.c: a recording's staging file shaped like a CUDA program that launches N empty kernels
 * back to back (as tests/gpu/cuda_counts --burst N did on an H200): each launch a cudaLaunchKernel
 * holding a cuKernelGetName, and its kernel; CUPTI's records go through cupti_translate.c as the
 * injection library stages them, in ~6 MiB chunks, API records apart from kernels, as CUPTI's buffers
 * hand them over. `tracedb finish` of it measures how long a recording of 3N events takes to close.
 * Usage: cupti_stage FILE N */
#include "cupti_translate.h"
#include "jsonbuf.h"
#include "stage_convert.h"
#include "stage_format.h"
#include <cupti_activity.h>
#include <stdio.h>
#include <stdlib.h>

static const char *api_names(void *ctx, int driver, uint32_t cbid)
{
    (void)ctx, (void)cbid;
    return driver ? "cuKernelGetName" : "cudaLaunchKernel_v7000";
}

static int emit(void *arg, int64_t pid, int64_t tid, const struct tdb_event *ev)
{
    return stage_event_encode(arg, pid, tid, ev);
}

static void chunk(FILE *f, struct buf *b)
{
    struct stage_chunk h = {STAGE_EVENTS, (uint32_t)b->n, 0};
    fwrite(&h, sizeof h, 1, f);
    fwrite(b->p, 1, b->n, f);
    b->n = 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: cupti_stage FILE N\n");
        return 2;
    }
    long n = atol(argv[2]);
    FILE *f = fopen(argv[1], "wb");
    struct cupti_translate *t = calloc(1, sizeof *t);
    if (!f || !t || n <= 0 || n > 1000000000)
        return 1;
    int64_t pid = 100;
    fwrite(STAGE_MAGIC, 1, 8, f);
    fwrite(&pid, 8, 1, f);
    struct buf api = {0}, kernels = {0};
    t->pid = pid, t->api_name = api_names, t->emit = emit;
    const uint64_t t0 = 1000000000000ULL;
    for (long i = 0; i < n; i++) {
        uint64_t s = t0 + (uint64_t)i * 5000; /* a launch every 5 us, as on the H200 */
        CUpti_ActivityAPI d = {0}, a = {0};
        d.kind = CUPTI_ACTIVITY_KIND_DRIVER, d.cbid = 1, d.start = s + 1000, d.end = s + 1100;
        d.processId = 100, d.threadId = 7, d.correlationId = (uint32_t)(2 * n + i + 1);
        a.kind = CUPTI_ACTIVITY_KIND_RUNTIME, a.cbid = 211, a.start = s, a.end = s + 4000;
        a.processId = 100, a.threadId = 7, a.correlationId = (uint32_t)(i + 1);
        t->emit_arg = &api; /* CUPTI writes a call's record when it returns: the inner one first */
        if (cupti_translate_record(t, &d) != 0 || cupti_translate_record(t, &a) != 0)
            return 1;
        CUpti_ActivityKernel10 k = {0};
        k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, k.start = s + 20000, k.end = s + 20500;
        k.deviceId = 0, k.streamId = 13, k.correlationId = (uint32_t)(i + 1), k.name = "_Z12empty_kernelv";
        k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
        t->emit_arg = &kernels;
        if (cupti_translate_record(t, &k) != 0)
            return 1;
        if (api.n > (6u << 20))
            chunk(f, &api);
        if (kernels.n > (6u << 20))
            chunk(f, &kernels);
    }
    if (api.n)
        chunk(f, &api);
    if (kernels.n)
        chunk(f, &kernels);
    struct stage_close c = {(int64_t)(t0 + (uint64_t)n * 5000 + 100000), 0};
    struct stage_chunk h = {STAGE_CLOSE, sizeof c, 0};
    fwrite(&h, sizeof h, 1, f);
    fwrite(&c, sizeof c, 1, f);
    buf_free(&api), buf_free(&kernels), free(t);
    return fclose(f) == 0 ? 0 : 1;
}
