/* nvtx_inject.c: NVTX capture with no rebuild. NVTX (header-only nvtx3, as CUDA libraries and
 * PyTorch's emit_nvtx use it) loads the library named by NVTX_INJECTION64_PATH at the first NVTX
 * call and calls its InitializeInjectionNvtx2(); we write our functions into NVTX's callback tables
 * (core and domain modules), so every push/pop, start/end, mark and domain range of the program lands
 * in the recording (recording.c) that TRACEDB_OUTPUT names, opened by this library's constructor.
 * PyTorch's "aten::mm, seq = 3, op_id = 7, sizes = [...]" ranges become operators with their shapes. */
#define _GNU_SOURCE
#include "recording.h"
#include "ingest.h"
#include <nvtx3/nvToolsExt.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A domain handle or registered string handle is a copy of its name that we own (kept on a list
 * until the process ends: NVTX may use a handle until then). */
static const char *nvtx_text(const nvtxEventAttributes_t *a)
{
    if (!a)
        return "";
    if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii)
        return a->message.ascii;
    if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED && a->message.registered)
        return (const char *)a->message.registered;
    return "(unnamed)"; /* wide-character messages are not decoded */
}

static int NVTX_API nvtx_push_a(const char *msg)
{
    tdb_range_push_cat(msg ? msg : "", NULL);
    return 0;
}

static int NVTX_API nvtx_push_ex(const nvtxEventAttributes_t *a)
{
    return nvtx_push_a(nvtx_text(a));
}

static int NVTX_API nvtx_pop(void)
{
    tdb_range_pop();
    return 0;
}

static nvtxRangeId_t NVTX_API nvtx_start_a(const char *msg)
{
    return (nvtxRangeId_t)tdb_range_start(msg ? msg : "");
}

static nvtxRangeId_t NVTX_API nvtx_start_ex(const nvtxEventAttributes_t *a)
{
    return nvtx_start_a(nvtx_text(a));
}

static void NVTX_API nvtx_end(nvtxRangeId_t id)
{
    tdb_range_end((int64_t)id);
}

static void NVTX_API nvtx_mark_a(const char *msg)
{
    tdb_instant(msg ? msg : "");
}

static void NVTX_API nvtx_mark_ex(const nvtxEventAttributes_t *a)
{
    tdb_instant(nvtx_text(a));
}

/* Every handle's name, on a list that lives as long as the process (so it is never a leak, only held). */
struct nvtx_name {
    struct nvtx_name *next;
    char text[];
};
static struct nvtx_name *_Atomic nvtx_names;

static const char *nvtx_keep(const char *text)
{
    size_t n = strlen(text ? text : "") + 1;
    struct nvtx_name *k = malloc(sizeof *k + n);
    if (!k)
        return NULL;
    memcpy(k->text, text ? text : "", n);
    k->next = atomic_load(&nvtx_names);
    while (!atomic_compare_exchange_weak(&nvtx_names, &k->next, k))
        ;
    return k->text;
}

static nvtxDomainHandle_t NVTX_API nvtx_domain_create_a(const char *name)
{
    return (nvtxDomainHandle_t)nvtx_keep(name);
}

static void NVTX_API nvtx_domain_destroy(nvtxDomainHandle_t d)
{
    (void)d; /* kept: ranges recorded under it still refer to the name */
}

static nvtxStringHandle_t NVTX_API nvtx_register_string_a(nvtxDomainHandle_t d, const char *s)
{
    (void)d;
    return (nvtxStringHandle_t)nvtx_keep(s);
}

static int NVTX_API nvtx_domain_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    tdb_range_push_cat(nvtx_text(a), (const char *)d);
    return 0;
}

static int NVTX_API nvtx_domain_pop(nvtxDomainHandle_t d)
{
    tdb_range_pop_cat((const char *)d);
    return 0;
}

static nvtxRangeId_t NVTX_API nvtx_domain_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    (void)d;
    return nvtx_start_ex(a);
}

static void NVTX_API nvtx_domain_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
    (void)d;
    nvtx_end(id);
}

static void NVTX_API nvtx_domain_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    (void)d;
    nvtx_mark_ex(a);
}

/* Writes fn into slot id of a module's table when the table has it. */
static void nvtx_set(NvtxFunctionTable table, unsigned size, unsigned id, NvtxFunctionPointer fn)
{
    if (id < size && table[id])
        *table[id] = fn;
}

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get); /* NVTX looks this up by name */

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    /* the recording TRACEDB_OUTPUT names, opened by this library's constructor (recording.c) with the options
     * TRACEDB_LEVEL, TRACEDB_KINDS, TRACEDB_SCHEDULE and TRACEDB_STEP give (a step range's pop or end ends a
     * step of the schedule); none when they were refused (CUPTI's capture does the same) */
    if (!tdb_current())
        return 0; /* NVTX then calls nothing of ours */
    const NvtxExportTableCallbacks *cb = get ? (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS) : NULL;
    if (!cb || !cb->GetModuleFunctionTable)
        return 0;
    NvtxFunctionTable t;
    unsigned n = 0;
    if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n) && t) {
        nvtx_set(t, n, NVTX_CBID_CORE_MarkEx, (NvtxFunctionPointer)nvtx_mark_ex);
        nvtx_set(t, n, NVTX_CBID_CORE_MarkA, (NvtxFunctionPointer)nvtx_mark_a);
        nvtx_set(t, n, NVTX_CBID_CORE_RangeStartEx, (NvtxFunctionPointer)nvtx_start_ex);
        nvtx_set(t, n, NVTX_CBID_CORE_RangeStartA, (NvtxFunctionPointer)nvtx_start_a);
        nvtx_set(t, n, NVTX_CBID_CORE_RangeEnd, (NvtxFunctionPointer)nvtx_end);
        nvtx_set(t, n, NVTX_CBID_CORE_RangePushEx, (NvtxFunctionPointer)nvtx_push_ex);
        nvtx_set(t, n, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)nvtx_push_a);
        nvtx_set(t, n, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)nvtx_pop);
    }
    if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n) && t) {
        nvtx_set(t, n, NVTX_CBID_CORE2_DomainMarkEx, (NvtxFunctionPointer)nvtx_domain_mark_ex);
        nvtx_set(t, n, NVTX_CBID_CORE2_DomainRangeStartEx, (NvtxFunctionPointer)nvtx_domain_start_ex);
        nvtx_set(t, n, NVTX_CBID_CORE2_DomainRangeEnd, (NvtxFunctionPointer)nvtx_domain_end);
        nvtx_set(t, n, NVTX_CBID_CORE2_DomainRangePushEx, (NvtxFunctionPointer)nvtx_domain_push_ex);
        nvtx_set(t, n, NVTX_CBID_CORE2_DomainRangePop, (NvtxFunctionPointer)nvtx_domain_pop);
        nvtx_set(t, n, NVTX_CBID_CORE2_DomainCreateA, (NvtxFunctionPointer)nvtx_domain_create_a);
        nvtx_set(t, n, NVTX_CBID_CORE2_DomainDestroy, (NvtxFunctionPointer)nvtx_domain_destroy);
        nvtx_set(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, (NvtxFunctionPointer)nvtx_register_string_a);
    }
    return 1;
}
