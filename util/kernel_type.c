/* kernel_type.c: HTA's kernel types for GPU work by name (utils.get_kernel_type, patterns anchored at the
 * start as Python's re.match is), the one rule every part of tracedb classifies GPU work by:
 * 'communication' (collectives: nccl*, rccl*, hccl*, or a name holding ncclKernel / ncclDevKernel), else
 * 'memory' (Memcpy*, Memset*, hipMemcpy*, hipMemset*, dma*), else 'computation' unless the name is one of
 * HTA's exclusions (memcpy, memset, dma or *Sync anywhere; at the start Stream Wait Event, cuda*LaunchKernel,
 * runFunction, hip*, and the accelerator runtimes' job_exe, packet, pe_exe, cpum_exe_subgraph,
 * collective_subgraph_execution), else 'other'. Where tracedb differs from HTA on purpose: HTA counts every
 * hip* name as communication, so AMD's hipMemcpy/hipMemset become memory here, and rccl* and
 * ncclDevKernel (RCCL's and newer NCCL's collectives) are communication. */
#include "kernel_type.h"
#include <string.h>

static int starts(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

/* Where the first p in the n bytes at s begins, or NULL. */
static const char *find(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    for (size_t i = 0; k <= n && i <= n - k; i++)
        if (s[i] == p[0] && memcmp(s + i, p, k) == 0)
            return s + i;
    return NULL;
}

enum tdb_kernel_type tdb_kernel_type_of(const char *s, size_t n)
{
    if (!s)
        s = "", n = 0;
    if (starts(s, n, "nccl") || starts(s, n, "rccl") || starts(s, n, "hccl") || find(s, n, "ncclKernel") ||
        find(s, n, "ncclDevKernel"))
        return TDB_KT_COMMUNICATION;
    if (starts(s, n, "Memcpy") || starts(s, n, "Memset") || starts(s, n, "hipMemcpy") || starts(s, n, "hipMemset") ||
        starts(s, n, "dma"))
        return TDB_KT_MEMORY;
    static const char *const not_compute[] = {"hip", "Stream Wait Event", "runFunction", "job_exe", "packet", "pe_exe",
                                              "cpum_exe_subgraph", "collective_subgraph_execution"};
    int excluded = find(s, n, "Memcpy") || find(s, n, "Memset") || find(s, n, "dma") || find(s, n, "Sync") ||
                   (starts(s, n, "cuda") && find(s + 4, n - 4, "LaunchKernel"));
    for (size_t i = 0; !excluded && i < sizeof not_compute / sizeof not_compute[0]; i++)
        excluded = starts(s, n, not_compute[i]);
    return excluded ? TDB_KT_OTHER : TDB_KT_COMPUTATION;
}

const char *tdb_kernel_type_name(enum tdb_kernel_type t)
{
    static const char *const names[] = {[TDB_KT_COMPUTATION] = "computation", [TDB_KT_COMMUNICATION] = "communication",
                                        [TDB_KT_MEMORY] = "memory", [TDB_KT_OTHER] = "other"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "other";
}

const char *tdb_kernel_type(const char *name)
{
    return tdb_kernel_type_name(tdb_kernel_type_of(name, name ? strlen(name) : 0));
}
