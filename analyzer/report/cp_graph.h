/* cp_graph.h: HTA's critical path graph (analyzers/critical_path_analysis.py, CPGraph) over one
 * trace's events, and its longest path. cp_rows.c loads the rows from a database; cp_graph.c
 * builds the graph and finds the path, with HTA's rules and in HTA's order, so that where two paths are
 * equally long the same one is chosen. */
#ifndef TDB_CP_GRAPH_H
#define TDB_CP_GRAPH_H
#include <stdint.h>
#include <stddef.h>

/* What a row's name or category is, for the graph's rules (cp_name_flags). */
enum cp_flag {
    CP_LOCK = 1 << 0,          /* takes CUDA's runtime lock: cudaHostAlloc, cudaLaunchKernel, cudaMemcpyAsync */
    CP_BLOCKING = 1 << 1,      /* a blocking call: its own time is not on the path (cudaDeviceSynchronize ...) */
    CP_LAUNCH = 1 << 2,        /* a launch call (HTA's runtime launch mask: tdb_launch_call, sqlfuncs.c) */
    CP_EVENT_RECORD = 1 << 3,  /* cudaEventRecord */
    CP_WAIT_CALL = 1 << 4,     /* cudaStreamWaitEvent */
    CP_WAIT_EVENT = 1 << 5,    /* the GPU's "Stream Wait Event" */
    CP_EVENT_SYNC = 1 << 6,    /* "Event Sync" */
    CP_CONTEXT_SYNC = 1 << 7,  /* "Context Sync" */
    CP_STREAM_SYNC = 1 << 8,   /* "Stream Sync" */
    CP_FORWARD = 1 << 9,       /* the name holds "forward" */
    CP_AUTOGRAD = 1 << 10,     /* ... "autograd" */
    CP_COMM = 1 << 11,         /* a communication kernel (kernel_type()) */
    /* categories */
    CP_CAT_OP = 1 << 12,       /* cpu_op */
    CP_CAT_RUNTIME = 1 << 13,  /* cuda_runtime or cuda_driver */
    CP_CAT_ANNOTATION = 1 << 14, /* user_annotation */
    CP_CAT_SYNC = 1 << 15,     /* cuda_sync (or tracedb's sync kind) */
    /* (cp_row.flags holds 16 bits) */
};

/* The flags of an event name or category. */
unsigned cp_name_flags(const char *s);

/* A sync row's wait_on_stream and wait_on_cuda_event_record_corr_id (-1 where it has none); few rows
 * have them, so they are kept beside the rows. */
struct cp_wait {
    int64_t stream, corr;
};

/* One event of the trace, in file (id) order: what HTA's dataframe holds of it (64 bytes). */
struct cp_row {
    int64_t id;          /* event id */
    int64_t ts, end;     /* ns */
    int64_t stream;      /* -1: a host row (HTA's stream column) */
    int64_t device;      /* GPU rows: the device (HTA's pid) */
    int64_t correlation; /* -1 when none */
    int32_t thread;      /* host rows: the thread's position in (pid, tid) order; -1 for GPU rows */
    int32_t link;        /* HTA's index_correlation, as a row index: launch <-> GPU work; -1 none */
    int32_t wait;        /* sync rows: its cp_wait; -1 none */
    uint16_t flags;      /* the name's and the category's cp_flag */
    uint8_t clipped;     /* in the window (HTA's clipped dataframe) */
    uint8_t has_launch;  /* (for the loader) its launch_id is not NULL */
};

enum cp_edge_type { CP_OPERATOR, CP_DEPENDENCY, CP_LAUNCH_DELAY, CP_KERNEL_GAP, CP_SYNC };
enum cp_bound { CP_BOUND_NONE, CP_BOUND_CPU, CP_BOUND_COMPUTE, CP_BOUND_COMM, CP_BOUND_LAUNCH, CP_BOUND_GAP };

/* One edge of the path, in path order. */
struct cp_step {
    int64_t from_ts, to_ts;
    int64_t weight;      /* as HTA's breakdown has it (a negative weight counts 0 in the path) */
    int32_t event;       /* row the edge is attributed to, or -1 */
    int32_t from_row, to_row;
    uint8_t type;        /* cp_edge_type */
    uint8_t bound;       /* cp_bound */
};

/* Which GPU work gets an edge from its launch call. */
enum cp_launch_edges {
    CP_LAUNCH_EVERY, /* all of it: the launch delay where HTA adds one, else an edge of zero weight (HTA's
                      * CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE): work queued behind other work cannot
                      * start before its launch, and the path can run from the host into the GPU */
    CP_LAUNCH_HTA,   /* HTA's default: only work whose stream was idle at the launch (queue lengths 1 and 0) */
};

struct cp_result {
    int64_t length;        /* the path's length (ns), negative weights counted 0 */
    int64_t bound_ns[6];   /* by cp_bound */
    int64_t start_ts;      /* where the path starts (with an edge) */
    int64_t end_ts;        /* where it ends */
    struct cp_step *steps; /* the path's edges, when asked for; else NULL */
    size_t nsteps, events; /* edges; distinct events on the path */
    size_t nodes, edges;   /* the graph's */
    size_t gpu_work;       /* GPU rows in the graph whose launch call is too */
    size_t launch_delays;  /* of them, those HTA's rule gives a launch delay (their stream idle at the launch) */
    char error[256];       /* why no path, when cp_build fails */
};

/* Builds HTA's graph over rows (n of them, file order; rows[i].clipped marks the window; their waits), GPU
 * work linked to its launches as launches says, and finds its longest path, edge by edge in r->steps when
 * steps is set. 0; -1 with r->error set when the graph is not valid (a cycle, a sync edge within one
 * stream) or memory ran out. cp_result_free releases r. */
int cp_build(const struct cp_row *rows, size_t n, const struct cp_wait *waits, enum cp_launch_edges launches, int steps,
             struct cp_result *r);
void cp_result_free(struct cp_result *r);

#endif
