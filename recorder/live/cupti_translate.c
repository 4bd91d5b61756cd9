/* cupti_translate.c: CUPTI activity records (CUDA 13: Kernel10, Memcpy6, Memset4, Memory4, API,
 * Marker2) into tracedb rows, through the ingest writer like every other source. Kept apart from the
 * CUPTI calls (cupti_inject.c) so it can be tested with real record structs on a machine without a GPU.
 * Rows take the shape Kineto gives them, so every report reads them unchanged: kernels, memcpy and
 * memset on a track per device (pid) and stream (tid), runtime/driver calls on their CPU thread with
 * their correlation, allocations and releases as [memory] events with running totals. */
#include "cupti_translate.h"
#include <cupti_activity.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (C ABI): kernel names arrive mangled. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

static struct tdb_str cstr(const char *s)
{
    struct tdb_str r = {s ? s : "", s ? strlen(s) : 0};
    return r;
}

static const char *memory_kind(unsigned k)
{
    static const char *const names[] = {"Unknown", "Pageable", "Pinned", "Device", "Array", "Managed",
                                        "Device Static", "Managed Static"};
    return k < sizeof names / sizeof names[0] ? names[k] : "Unknown";
}

static const char *copy_kind(unsigned k)
{
    static const char *const names[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA",
                                        "DtoD", "HtoH", "PtoP"};
    return k < sizeof names / sizeof names[0] ? names[k] : "Unknown";
}

/* The record's times as the event's start and duration: 0, or 1 when they are not times (past
 * TDB_TIME_MAX: counted as incomplete, the record is dropped). An end before the start is a zero
 * duration; an end past TDB_TIME_MAX is cut there. */
static int span(struct cupti_translate *t, struct tdb_event *ev, uint64_t start, uint64_t end)
{
    if (start > (uint64_t)TDB_TIME_MAX) {
        t->incomplete++;
        return 1;
    }
    ev->start_ns = (int64_t)start;
    uint64_t room = (uint64_t)TDB_TIME_MAX - start; /* the end stays within the range */
    ev->dur_ns = end > start ? (int64_t)(end - start < room ? end - start : room) : 0;
    return 0;
}

/* Hands one event on: to the ingest writer, or to the caller's emit (the recorder stages it). */
static int put(struct cupti_translate *t, int64_t pid, int64_t tid, struct tdb_event *ev)
{
    if (t->emit)
        return t->emit(t->emit_arg, pid, tid, ev);
    ev->thread_id = tdb_ingest_thread_ids(t->ing, pid, tid);
    if (ev->thread_id < 0)
        return -1;
    return tdb_ingest_event(t->ing, ev) < 0 ? -1 : 0;
}

static int gpu_work(struct cupti_translate *t, struct tdb_event *ev, uint32_t device, uint32_t stream, uint64_t start,
                    uint64_t end)
{
    ev->device = device;
    ev->stream = stream;
    if (start == 0 && end == 0) { /* CUPTI ran out of device buffers for this record */
        t->incomplete++;
        return 0;
    }
    if (span(t, ev, start, end))
        return 0;
    return put(t, device, stream, ev);
}

static int kernel(struct cupti_translate *t, const CUpti_ActivityKernel10 *k)
{
    struct tdb_event ev;
    tdb_event_init(&ev);
    int status = -1;
    char *demangled = k->name ? __cxa_demangle(k->name, NULL, NULL, &status) : NULL;
    ev.kind = TDB_KIND_KERNEL;
    ev.name = cstr(status == 0 && demangled ? demangled : k->name ? k->name : "(unnamed kernel)");
    ev.cat = cstr("kernel");
    ev.correlation = k->correlationId;
    ev.has_launch = 1;
    ev.grid[0] = k->gridX, ev.grid[1] = k->gridY, ev.grid[2] = k->gridZ;
    ev.block[0] = k->blockX, ev.block[1] = k->blockY, ev.block[2] = k->blockZ;
    ev.registers = k->registersPerThread;
    ev.shared_mem = (int64_t)k->staticSharedMemory + k->dynamicSharedMemory;
    int rc = gpu_work(t, &ev, k->deviceId, k->streamId, k->start, k->end);
    free(demangled);
    return rc;
}

static int memcpy_rec(struct cupti_translate *t, const CUpti_ActivityMemcpy6 *m)
{
    char name[96];
    snprintf(name, sizeof name, "Memcpy %s (%s -> %s)", copy_kind(m->copyKind), memory_kind(m->srcKind),
             memory_kind(m->dstKind));
    struct tdb_event ev;
    tdb_event_init(&ev);
    ev.kind = TDB_KIND_MEMCPY;
    ev.name = cstr(name);
    ev.cat = cstr("gpu_memcpy");
    ev.bytes = (int64_t)m->bytes;
    ev.correlation = m->correlationId;
    return gpu_work(t, &ev, m->deviceId, m->streamId, m->start, m->end);
}

static int memset_rec(struct cupti_translate *t, const CUpti_ActivityMemset4 *m)
{
    char name[64];
    snprintf(name, sizeof name, "Memset (%s)", memory_kind(m->memoryKind));
    struct tdb_event ev;
    tdb_event_init(&ev);
    ev.kind = TDB_KIND_MEMSET;
    ev.name = cstr(name);
    ev.cat = cstr("gpu_memset");
    ev.bytes = (int64_t)m->bytes;
    ev.correlation = m->correlationId;
    return gpu_work(t, &ev, m->deviceId, m->streamId, m->start, m->end);
}

/* MEMORY2: one record per allocation and per release; the running total per device is ours. */
static int memory(struct cupti_translate *t, const CUpti_ActivityMemory4 *m)
{
    int alloc = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    if (!alloc && m->memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
        return 0;
    if (m->bytes > (uint64_t)INT64_MAX) { /* no allocation is that large: a damaged record */
        t->incomplete++;
        return 0;
    }
    unsigned d = m->deviceId < CUPTI_TRANSLATE_DEVICES ? m->deviceId : CUPTI_TRANSLATE_DEVICES - 1;
    int64_t delta = alloc ? (int64_t)m->bytes : -(int64_t)m->bytes;
    if (__builtin_add_overflow(t->allocated[d], delta, &t->allocated[d])) /* damaged sizes: pin, never wrap */
        t->allocated[d] = delta < 0 ? INT64_MIN : INT64_MAX;
    struct tdb_event ev;
    tdb_event_init(&ev);
    ev.kind = TDB_KIND_MEMORY;
    ev.name = cstr("[memory]");
    ev.cat = cstr("cpu_instant_event");
    if (span(t, &ev, m->timestamp, m->timestamp))
        return 0;
    ev.bytes = alloc ? (int64_t)m->bytes : -(int64_t)m->bytes;
    ev.addr = (int64_t)m->address;
    ev.device = m->deviceId;
    ev.device_type = 1;
    ev.total_allocated = t->allocated[d];
    ev.correlation = m->correlationId ? m->correlationId : TDB_NULL;
    return put(t, m->processId ? m->processId : t->pid, 0, &ev);
}

/* A runtime call's name as Kineto and nsys give it: CUPTI's runtime names carry the version of the
 * call's ABI (cudaLaunchKernel_v7000, cudaMemcpyAsync_v3020), which the function's name (and the
 * reports' launch and sync names) lack. A driver call's _v2 is its symbol's name (cuMemAlloc_v2): kept. */
static struct tdb_str api_base_name(const char *name)
{
    struct tdb_str r = cstr(name);
    size_t i = r.n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i < r.n && i > 2 && name[i - 1] == 'v' && name[i - 2] == '_')
        r.n = i - 2;
    return r;
}

static int api(struct cupti_translate *t, const CUpti_ActivityAPI *a, int driver)
{
    const char *name = t->api_name ? t->api_name(t->api_ctx, driver, a->cbid) : NULL;
    char fallback[48];
    if (!name) {
        snprintf(fallback, sizeof fallback, "%s API %u", driver ? "driver" : "runtime", (unsigned)a->cbid);
        name = fallback;
    }
    struct tdb_event ev;
    tdb_event_init(&ev);
    ev.kind = driver ? TDB_KIND_DRIVER : TDB_KIND_RUNTIME;
    ev.name = driver ? cstr(name) : api_base_name(name);
    ev.cat = cstr(driver ? "cuda_driver" : "cuda_runtime");
    if (span(t, &ev, a->start, a->end))
        return 0;
    ev.correlation = a->correlationId;
    char args[48];
    int n = snprintf(args, sizeof args, "{\"cbid\":%u}", (unsigned)a->cbid);
    ev.args = (struct tdb_str){args, (size_t)n};
    return put(t, a->processId, a->threadId, &ev);
}

/* NVTX through CUPTI: START and END share an id (the name is on START only); INSTANTANEOUS is a mark. */
static int marker(struct cupti_translate *t, const CUpti_ActivityMarker2 *m)
{
    int64_t pid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || m->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS
                      ? m->objectId.pt.processId
                      : t->pid;
    int64_t tid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0;
    if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
        for (size_t i = 0; i < CUPTI_TRANSLATE_MARKERS; i++) {
            struct cupti_marker *o = &t->open[i];
            if (o->used)
                continue;
            if (m->timestamp > (uint64_t)TDB_TIME_MAX) {
                t->incomplete++;
                return 0;
            }
            o->used = 1, o->id = m->id, o->start = (int64_t)m->timestamp, o->pid = pid, o->tid = tid;
            snprintf(o->name, sizeof o->name, "%s", m->name ? m->name : "");
            snprintf(o->domain, sizeof o->domain, "%s", m->domain ? m->domain : "");
            return 0;
        }
        t->incomplete++; /* too many ranges open at once */
        return 0;
    }
    struct tdb_event ev;
    tdb_event_init(&ev);
    if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
        for (size_t i = 0; i < CUPTI_TRANSLATE_MARKERS; i++) {
            struct cupti_marker *o = &t->open[i];
            if (!o->used || o->id != m->id)
                continue;
            o->used = 0;
            ev.kind = TDB_KIND_RANGE;
            ev.name = cstr(o->name);
            ev.cat = o->domain[0] ? cstr(o->domain) : (struct tdb_str){NULL, 0};
            span(t, &ev, (uint64_t)o->start, m->timestamp);
            return put(t, o->pid, o->tid, &ev);
        }
        return 0;
    }
    ev.kind = TDB_KIND_INSTANT;
    ev.name = cstr(m->name);
    if (span(t, &ev, m->timestamp, m->timestamp))
        return 0;
    return put(t, pid, tid, &ev);
}

int cupti_translate_record(struct cupti_translate *t, const void *record)
{
    const CUpti_Activity *r = record;
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        return kernel(t, record);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        return memcpy_rec(t, record);
    case CUPTI_ACTIVITY_KIND_MEMSET:
        return memset_rec(t, record);
    case CUPTI_ACTIVITY_KIND_MEMORY2:
        return memory(t, record);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
        return api(t, record, 0);
    case CUPTI_ACTIVITY_KIND_DRIVER:
        return api(t, record, 1);
    case CUPTI_ACTIVITY_KIND_MARKER:
        return marker(t, record);
    default:
        t->unknown++;
        return 0;
    }
}
