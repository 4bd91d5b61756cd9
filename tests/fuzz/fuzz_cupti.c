/* fuzz_cupti.c: libFuzzer target for the CUPTI activity translation (CUDA 13 record structs). The input
 * is a sequence of records: a byte choosing the kind, then the struct's bytes as CUPTI would hand them
 * over. The string pointers CUPTI fills (kernel, marker and domain names) point at text taken from the
 * input (or are NULL), since CUPTI never hands over wild pointers; every other field is the fuzzer's.
 * Translated into an in-memory database, which is then finished (nesting, links, sums). */
#include "cupti_translate.h"
#include <cupti_activity.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *api_names(void *ctx, int driver, uint32_t cbid)
{
    (void)ctx, (void)driver;
    return cbid % 3 == 0 ? "cudaLaunchKernel" : cbid % 3 == 1 ? "cudaMemcpyAsync" : NULL;
}

/* A NUL-terminated copy of up to 40 bytes of the input, or NULL. */
static const char *text(char *slot, const uint8_t **p, const uint8_t *end)
{
    if (*p >= end || **p == 0xff) {
        (*p) += *p < end;
        return NULL;
    }
    size_t n = (size_t)(end - *p) < 40 ? (size_t)(end - *p) : 40;
    memcpy(slot, *p, n);
    slot[n] = 0;
    *p += n;
    return slot;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    struct tdb_ingest *ing = tdb_ingest_open(NULL, TDB_OPEN_MEMORY, devnull);
    if (!ing)
        return 0;
    tdb_ingest_begin_trace(ing, "fuzz", "recorder");
    static struct cupti_translate t;
    memset(&t, 0, sizeof t);
    t.ing = ing, t.pid = 100, t.api_name = api_names;
    static const CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_MARKER, CUPTI_ACTIVITY_KIND_OVERHEAD,
    };
    const uint8_t *p = data, *end = data + size;
    int rc = 0;
    while (p < end && rc == 0) {
        union {
            CUpti_Activity a;
            CUpti_ActivityKernel10 k;
            CUpti_ActivityMemcpy6 c;
            CUpti_ActivityMemset4 s;
            CUpti_ActivityMemory4 m;
            CUpti_ActivityAPI api;
            CUpti_ActivityMarker2 mk;
        } r;
        char s1[41], s2[41];
        CUpti_ActivityKind kind = kinds[*p++ % (sizeof kinds / sizeof kinds[0])];
        size_t need = kind == CUPTI_ACTIVITY_KIND_KERNEL || kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ? sizeof r.k
                      : kind == CUPTI_ACTIVITY_KIND_MEMCPY                                                  ? sizeof r.c
                      : kind == CUPTI_ACTIVITY_KIND_MEMSET                                                  ? sizeof r.s
                      : kind == CUPTI_ACTIVITY_KIND_MEMORY2                                                 ? sizeof r.m
                      : kind == CUPTI_ACTIVITY_KIND_MARKER                                                  ? sizeof r.mk
                                                                                                            : sizeof r.api;
        size_t n = (size_t)(end - p) < need ? (size_t)(end - p) : need;
        memset(&r, 0, sizeof r);
        memcpy(&r, p, n);
        p += n;
        r.a.kind = kind;
        if (kind == CUPTI_ACTIVITY_KIND_KERNEL || kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            r.k.name = text(s1, &p, end);
        if (kind == CUPTI_ACTIVITY_KIND_MARKER) {
            r.mk.name = text(s1, &p, end);
            r.mk.domain = text(s2, &p, end);
        }
        rc = cupti_translate_record(&t, &r);
    }
    tdb_ingest_end_trace(ing, &(struct tdb_trace_info){.source_file = "fuzz", .status = "complete"});
    tdb_ingest_finish(ing, 1);
    return 0;
}
