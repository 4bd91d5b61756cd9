/* cp_graph.c: HTA's critical path graph and its longest path (see cp_graph.h): the names' rules
 * (cp_name_flags) and cp_build, which runs the parts (cp_graph_internal.h) rule for rule as
 * hta/analyzers/critical_path_analysis.py builds it:
 *  - a start and an end node for every host operator or runtime call in the window and every GPU row
 *    linked to its launch, ordered by (time, event);
 *  - the runtime-lock chains of cudaLaunchKernel, cudaMemcpyAsync and cudaHostAlloc across threads;
 *  - each host thread's call stack (built as HTA's CallStackGraph builds it, the backward thread merged
 *    into the forward one) walked depth first: nested calls are operator edges, consecutive top-level
 *    calls dependency edges, a blocking call's own time weighs nothing;
 *  - each stream's GPU work in start order (syncs by their end): a launch-delay edge when the queue was
 *    empty, else a kernel-to-kernel edge when the gap is under 1.5 ms, and then (unless HTA's default is
 *    asked for) a zero-weight edge from the launch where no launch delay was added; zero-weight sync edges for
 *    context, stream and event syncs and for cudaStreamWaitEvent (through cudaEventRecord's last launch).
 * The longest path is networkx's dag_longest_path: a topological order by generations, each node's
 * first best predecessor, the first node with the greatest distance; edges keep the order HTA adds them
 * in, so that among equally long paths the same one is found. Nothing here allocates per event beyond
 * the arrays sized once from the rows. The nodes and the host's edges: cp_nodes.c, cp_stacks.c; the GPU's:
 * cp_kernels.c; the path: cp_path.c; the sorts they use: cp_order.c. */
#include "cp_graph_internal.h"
#include "bigmem.h"
#include "kernel_type.h"
#include "report.h"
#include "sqlfuncs.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned cp_name_flags(const char *s)
{
    static const struct {
        const char *name;
        unsigned flags;
    } exact[] = {
        {"cudaLaunchKernel", CP_LOCK},
        {"cudaMemcpyAsync", CP_LOCK | CP_BLOCKING},
        {"cudaHostAlloc", CP_LOCK},
        {"cudaDeviceSynchronize", CP_BLOCKING},
        {"cudaStreamSynchronize", CP_BLOCKING},
        {"cudaEventQuery", CP_BLOCKING},
        {"cudaEventSynchronize", CP_BLOCKING},
        {"cudaMemcpy", CP_BLOCKING},
        {"cudaEventRecord", CP_EVENT_RECORD},
        {"cudaStreamWaitEvent", CP_WAIT_CALL},
        {"Stream Wait Event", CP_WAIT_EVENT},
        {"Event Sync", CP_EVENT_SYNC},
        {"Context Sync", CP_CONTEXT_SYNC},
        {"Stream Sync", CP_STREAM_SYNC},
        {"cpu_op", CP_CAT_OP},
        {"cuda_runtime", CP_CAT_RUNTIME},
        {"cuda_driver", CP_CAT_RUNTIME},
        {"user_annotation", CP_CAT_ANNOTATION},
        {"cuda_sync", CP_CAT_SYNC},
    };
    unsigned f = 0;
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(s, exact[i].name) == 0)
            f |= exact[i].flags;
    if (tdb_launch_call(s)) /* HTA's launch mask: the one list, SQL's tdb_launch_call too (sqlfuncs.c) */
        f |= CP_LAUNCH;
    if (strstr(s, "forward"))
        f |= CP_FORWARD;
    if (strstr(s, "autograd"))
        f |= CP_AUTOGRAD;
    if (tdb_kernel_type_of(s, strlen(s)) == TDB_KT_COMMUNICATION) /* kernel_type()'s rule: the one (util) */
        f |= CP_COMM;
    return f;
}

int cp_build(const struct cp_row *rows, size_t n, const struct cp_wait *waits, enum cp_launch_edges launches, int steps,
             struct cp_result *r)
{
    memset(r, 0, sizeof *r);
    struct graph g = {.rows = rows, .n = n, .waits = waits, .launches = launches};
    int rc = -1;
    if (n > INT32_MAX / 2) {
        snprintf(r->error, sizeof r->error, "too many events (%zu) for one graph", n);
        return -1;
    }
    g.start = tdb_big_malloc(2 * (n + 1) * sizeof *g.start); /* and g.end: one array, later the longest path's room */
    if (!g.start)
        goto oom;
    g.end = g.start + n + 1;
    for (size_t i = 0; i < n; i++)
        g.start[i] = g.end[i] = -1;
    /* the GPU's edges on a second thread, into a list of their own, while this one makes the nodes and
     * adds the host's edges; then theirs after these, as HTA adds them (no edge of one joins the nodes
     * an edge of the other does) */
    struct kernel_job job = {.g = &g, .rc = -1};
    pthread_t thread;
    int threaded = pthread_mutex_init(&job.lock, NULL) == 0;
    if (threaded && pthread_cond_init(&job.made, NULL) != 0) {
        pthread_mutex_destroy(&job.lock);
        threaded = 0;
    }
    int sync_ok = threaded;
    threaded = threaded && pthread_create(&thread, NULL, cp_kernel_job_run, &job) == 0;
    int made = cp_make_nodes(&g) == 0;
    report_phase("cp: nodes");
    if (threaded)
        cp_kernel_job_ready(&job, made ? 1 : -1);
    int host_rc = made && cp_runtime_lock_edges(&g) == 0 && cp_all_call_stacks(&g) == 0 ? 0 : -1;
    report_phase("cp: host's edges");
    if (threaded) {
        pthread_join(thread, NULL);
        report_phase("cp: GPU's edges (waited for)");
    } else if (made) { /* no second thread: in turn */
        job.ready = 1;
        if (sync_ok)
            cp_kernel_job_run(&job);
    }
    if (sync_ok)
        pthread_mutex_destroy(&job.lock), pthread_cond_destroy(&job.made);
    int joined = host_rc == 0 && job.rc == 0 && cp_add_recorded(&g, &job.recs) == 0;
    r->gpu_work = job.recs.work, r->launch_delays = job.recs.delays;
    free(job.recs.r);
    job.recs.r = NULL;
    if (!joined || g.oom)
        goto oom;
    report_phase("cp: GPU's edges added");
    /* the nodes' sorting room (2 n + 1 ints) and each row's nodes (2 n + 2) are done with: the longest
     * path's room (nn + 1 ints each) */
    int32_t *const spare[2] = {g.spare, g.start};
    if (!g.sync_suspect || cp_validate(&g, r) == 0)
        rc = cp_longest_path(&g, steps, spare, r);
    report_phase("cp: longest path");
    goto done;
oom:
    snprintf(r->error, sizeof r->error, "out of memory");
done:
    free(g.start), free(g.nodes), free(g.row_bits), free(g.e), free(g.head), free(g.tail), free(g.spare);
    free(g.indeg), free(g.named);
    free(g.stack_items), free(g.stack_tied), free(g.stack_at);
    free(job.recs.r);
    return rc;
}

void cp_result_free(struct cp_result *r)
{
    free(r->steps);
    r->steps = NULL;
}
