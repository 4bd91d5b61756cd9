/* report_columns.c: what each report's columns mean, in a few words: the one place `tracedb help COMMAND`
 * (and COMMAND --help) reads them from, with the command's sort keys (its cmd_*.c arrays) and each
 * column's unit, which the renderer reads off the column's name (render_unit). Columns as csv and json
 * name them, in their order; a mode (an option that gives another table) lists its own. */
#include "cli.h"
#include "render.h"
#include <string.h>

struct column_doc {
    const char *command; /* NULL: a column several reports share (its meaning for an entry with none) */
    const char *mode;    /* NULL: the default table; else the option that gives this one */
    const char *name;
    const char *meaning; /* NULL: the shared entry's */
};

static const struct column_doc column_docs[] = {
    {NULL, NULL, "rank", "the trace's rank (its distributedInfo; 0 when it names none)"},
    {NULL, NULL, "step", "the ProfilerStep#N the row's events start in"},
    {NULL, NULL, "device", "the device's index as the trace numbers it"},
    {NULL, NULL, "stream", "the GPU stream"},

    {"api", NULL, "time_pct", "share of the total time of the calls listed"},
    {"api", NULL, "total_ns", "the calls' summed duration"},
    {"api", NULL, "calls", "how many calls"},
    {"api", NULL, "avg_ns", "mean duration"},
    {"api", NULL, "med_ns", "median duration"},
    {"api", NULL, "min_ns", "shortest call"},
    {"api", NULL, "max_ns", "longest call"},
    {"api", NULL, "stddev_ns", "standard deviation of the durations (sample, n - 1)"},
    {"api", NULL, "name", "the runtime or driver function"},
    {"api", NULL, "api", "runtime or driver"},
    {"api", "--by-rank", "rank", NULL},

    {"critical-path", NULL, "rank", NULL},
    {"critical-path", NULL, "path_ns", "the critical path's length: the sum of its edges' weights"},
    {"critical-path", NULL, "cpu_ns", "of it, host work (HTA's cpu_bound)"},
    {"critical-path", NULL, "cpu_pct", "cpu_ns as a share of path_ns"},
    {"critical-path", NULL, "gpu_compute_ns", "of it, computation kernels (gpu_compute_bound)"},
    {"critical-path", NULL, "gpu_compute_pct", "gpu_compute_ns as a share of path_ns"},
    {"critical-path", NULL, "gpu_comm_ns", "of it, communication kernels (gpu_communication_bound)"},
    {"critical-path", NULL, "gpu_comm_pct", "gpu_comm_ns as a share of path_ns"},
    {"critical-path", NULL, "launch_ns", "of it, kernel launch delays (gpu_kernel_launch_overhead)"},
    {"critical-path", NULL, "launch_pct", "launch_ns as a share of path_ns"},
    {"critical-path", NULL, "kernel_gap_ns", "of it, gaps between kernels on a stream (gpu_kernel_kernel_overhead)"},
    {"critical-path", NULL, "kernel_gap_pct", "kernel_gap_ns as a share of path_ns"},
    {"critical-path", NULL, "start_ns", "where the path starts, after the trace's start"},
    {"critical-path", NULL, "end_ns", "where the path ends, after the trace's start"},
    {"critical-path", NULL, "window_start_ns", "the start of the events the path runs through"},
    {"critical-path", NULL, "window_end_ns", "the end of the events the path runs through"},
    {"critical-path", NULL, "path_events", "events on the path"},
    {"critical-path", NULL, "path_edges", "edges on the path"},
    {"critical-path", NULL, "graph_nodes", "nodes of the whole graph"},
    {"critical-path", NULL, "graph_edges", "edges of the whole graph"},
    {"critical-path", "--each", "rank", NULL},
    {"critical-path", "--each", "seq", "the edge's place on the path"},
    {"critical-path", "--each", "type", "what the edge is: an event's span, a launch, a dependency, a sync"},
    {"critical-path", "--each", "bound", "what it bounds the path by: cpu, gpu compute or communication, launch, kernel gap"},
    {"critical-path", "--each", "dur_ns", "the edge's weight"},
    {"critical-path", "--each", "from_ns", "where the edge starts, after the trace's start"},
    {"critical-path", "--each", "to_ns", "where the edge ends, after the trace's start"},
    {"critical-path", "--each", "event_id", "the event its time belongs to (events.id)"},
    {"critical-path", "--each", "name", "that event's name"},

    {"device", NULL, "step", "the step (or range named by --steps), or the whole trace"},
    {"device", NULL, "device", NULL},
    {"device", NULL, "span_ns", "the window: the whole trace's GPU span, or the step's range"},
    {"device", NULL, "busy_ns", "time any GPU work runs (overlaps across streams count once)"},
    {"device", NULL, "run_ns", "time computation kernels run (kernel_type() computation, as overlap's)"},
    {"device", NULL, "io_wait_ns", "busy minus run: memory, communication and other GPU work not under computation"},
    {"device", NULL, "idle_ns", "span minus busy"},
    {"device", NULL, "busy_pct", "busy_ns as a share of the span"},
    {"device", NULL, "run_pct", "run_ns as a share of the span"},
    {"device", NULL, "io_wait_pct", "io_wait_ns as a share of the span"},
    {"device", NULL, "idle_pct", "idle_ns as a share of the span"},
    {"device", "--executions", "trace_id", "the execution's trace id, where the trace keeps it"},
    {"device", "--executions", "span_id", "its span id, where the trace keeps it"},
    {"device", "--executions", "pe_index", "the PE (device) it ran on"},
    {"device", "--executions", "execution_index", "its index as Furiosa numbers it"},
    {"device", "--executions", "start_ns", "its start, after the trace's start"},
    {"device", "--executions", "total_ns", "its duration"},
    {"device", "--executions", "run_ns", "the summed durations of the operators inside it"},
    {"device", "--executions", "io_wait_ns", "total minus run"},

    {"diff", NULL, "name", "the operator, range, call or GPU work"},
    {"diff", NULL, "kind", "its kind (op, range, runtime, driver, kernel, memcpy, memset)"},
    {"diff", NULL, "base_calls", "calls in the base run"},
    {"diff", NULL, "new_calls", "calls in the new run"},
    {"diff", NULL, "base_total_ns", "self CPU time (GPU work: device time) in the base run"},
    {"diff", NULL, "new_total_ns", "the same in the new run"},
    {"diff", NULL, "base_avg_ns", "base_total_ns over base_calls"},
    {"diff", NULL, "new_avg_ns", "new_total_ns over new_calls"},
    {"diff", NULL, "delta_ns", "new total minus base total"},
    {"diff", NULL, "delta_pct", "delta_ns as a share of the base total"},
    {"diff", NULL, "status", "added, removed, increased, decreased or unchanged (within --tolerance)"},
    {"diff", NULL, "input_shapes", "with --by-shape: the input shapes matched (Input Dims)"},
    {"diff", "--section steps", "run", "base or new"},
    {"diff", "--section steps", "count", "steps (ProfilerStep#N)"},
    {"diff", "--section steps", "median_ns", "median step time"},
    {"diff", "--section steps", "p25_ns", "25th percentile"},
    {"diff", "--section steps", "p75_ns", "75th percentile"},
    {"diff", "--section steps", "iqr_ns", "p75 minus p25"},
    {"diff", "--section steps", "p90_ns", "90th percentile"},
    {"diff", "--section steps", "p99_ns", "99th percentile"},
    {"diff", "--section steps", "max_ns", "slowest step"},
    {"diff", "--section steps", "delta_median_ns", "new median minus base median"},
    {"diff", "--section steps", "delta_median_pct", "delta_median_ns as a share of the base median"},
    {"diff", "--section steps", "p_value", "two-sided Mann-Whitney U p-value of the step times"},
    {"diff", "--section device", "base_device", "the base run's device (paired by position)"},
    {"diff", "--section device", "new_device", "the new run's device"},
    {"diff", "--section device", "base_busy_ns", "time any GPU work runs, base"},
    {"diff", "--section device", "new_busy_ns", "the same, new"},
    {"diff", "--section device", "delta_busy_ns", "new minus base"},
    {"diff", "--section device", "base_run_ns", "time computation kernels run, base"},
    {"diff", "--section device", "new_run_ns", "the same, new"},
    {"diff", "--section device", "delta_run_ns", "new minus base"},
    {"diff", "--section device", "base_io_wait_ns", "busy minus run, base"},
    {"diff", "--section device", "new_io_wait_ns", "the same, new"},
    {"diff", "--section device", "delta_io_wait_ns", "new minus base"},
    {"diff", "--section device", "base_idle_ns", "span minus busy, base"},
    {"diff", "--section device", "new_idle_ns", "the same, new"},
    {"diff", "--section device", "delta_idle_ns", "new minus base"},
    {"diff", "--section device", "base_idle_pct", "idle as a share of the span, base"},
    {"diff", "--section device", "new_idle_pct", "the same, new"},
    {"diff", "--section device", "base_gpu", "the base run's GPU model"},
    {"diff", "--section device", "new_gpu", "the new run's GPU model"},
    {"diff", "--section memory", "run", "base or new"},
    {"diff", "--section memory", "device", NULL},
    {"diff", "--section memory", "peak_allocated_bytes", "the highest bytes allocated"},
    {"diff", "--section memory", "peak_reserved_bytes", "the highest bytes the caching allocator reserved"},

    {"idle", NULL, "rank", NULL},
    {"idle", NULL, "device", NULL},
    {"idle", NULL, "stream", NULL},
    {"idle", NULL, "idle_ns", "the gaps between consecutive GPU operations on the stream"},
    {"idle", NULL, "host_wait_ns", "of it, gaps whose next operation was launched after the previous one ended"},
    {"idle", NULL, "kernel_wait_ns", "of it, other gaps shorter than --kernel-wait-below (30 us)"},
    {"idle", NULL, "other_ns", "the rest"},
    {"idle", NULL, "host_wait_pct", "host_wait_ns as a share of idle_ns"},
    {"idle", NULL, "kernel_wait_pct", "kernel_wait_ns as a share of idle_ns"},
    {"idle", NULL, "other_pct", "other_ns as a share of idle_ns"},

    {"kernels", NULL, "time_pct", "share of the total time of the rows listed"},
    {"kernels", NULL, "total_ns", "the summed duration of the name's GPU work"},
    {"kernels", NULL, "instances", "how many ran"},
    {"kernels", NULL, "avg_ns", "mean duration"},
    {"kernels", NULL, "med_ns", "median duration"},
    {"kernels", NULL, "min_ns", "shortest"},
    {"kernels", NULL, "max_ns", "longest"},
    {"kernels", NULL, "stddev_ns", "standard deviation of the durations (sample, n - 1)"},
    {"kernels", NULL, "name", "the kernel's (or memcpy's, memset's) name"},
    {"kernels", NULL, "kind", "kernel, memcpy or memset"},
    {"kernels", NULL, "grid", "with --group-by launch: the grid, x,y,z"},
    {"kernels", NULL, "block", "with --group-by launch: the block, x,y,z"},
    {"kernels", NULL, "registers", "with --group-by launch: registers per thread"},
    {"kernels", NULL, "shared_mem_bytes", "with --group-by launch: shared memory per block"},
    {"kernels", "--by-rank", "rank", NULL},
    {"kernels", "--by-step", "step", NULL},
    {"kernels", "--by-type", "kernel_type", "computation, communication, memory, an overlap of them, or other"},
    {"kernels", "--by-type", "time_ns", "time in which exactly these kinds of work run"},
    {"kernels", "--by-type", "time_pct", "its share of the types' sum (other GPU work has none)"},
    {"kernels", "--by-type", "kernels", "GPU operations of the type"},
    {"kernels", "--patterns", "rank", NULL},
    {"kernels", "--patterns", "count", "how often the pattern occurs"},
    {"kernels", "--patterns", "kernels", "its length: GPU operations"},
    {"kernels", "--patterns", "gpu_ns", "the operations' time summed over the occurrences"},
    {"kernels", "--patterns", "cpu_ns", "the host events' (roots') time"},
    {"kernels", "--patterns", "pattern", "the root's name and its GPU operations' names, joined by '|'"},

    {"latency", NULL, "name", "the steps, ranges or operators measured (one population per name)"},
    {"latency", NULL, "count", "instances"},
    {"latency", NULL, "min_ns", "shortest"},
    {"latency", NULL, "max_ns", "longest"},
    {"latency", NULL, "mean_ns", "mean, cut to whole ns as Furiosa's int() does"},
    {"latency", NULL, "median_ns", "median"},
    {"latency", NULL, "p90_ns", "90th percentile (linear between closest ranks, numpy's default)"},
    {"latency", NULL, "p95_ns", "95th percentile"},
    {"latency", NULL, "p97_ns", "97th percentile"},
    {"latency", NULL, "p99_ns", "99th percentile"},
    {"latency", NULL, "p999_ns", "99.9th percentile"},
    {"latency", "--by-rank", "rank", NULL},
    {"latency", "--each", "name", "the instance's name"},
    {"latency", "--each", "start_ns", "its start, after the trace's start"},
    {"latency", "--each", "dur_ns", "its duration"},
    {"latency", "--each", "tid", "its thread, as the trace names it"},
    {"latency", "--each", "operator_index", "Furiosa's operator index, where the trace keeps it"},
    {"latency", "--each", "trace_id", "Furiosa's trace id, where the trace keeps it"},
    {"latency", "--each", "span_id", "Furiosa's span id, where the trace keeps it"},

    {"launches", NULL, "name", "the kernel (or memcpy, memset) launched"},
    {"launches", NULL, "launches", "launch calls paired with its GPU work"},
    {"launches", NULL, "cpu_avg_ns", "mean duration of the launch call"},
    {"launches", NULL, "gpu_avg_ns", "mean duration of the GPU work"},
    {"launches", NULL, "delay_avg_ns", "mean launch delay: the work's start minus the call's end, at least 0"},
    {"launches", NULL, "delay_p50_ns", "median launch delay"},
    {"launches", NULL, "delay_p99_ns", "99th percentile of the launch delay"},
    {"launches", NULL, "delay_max_ns", "longest launch delay"},
    {"launches", NULL, "short_kernels", "launches whose call is short and whose work is shorter than its call"},
    {"launches", NULL, "runtime_outliers", "launches whose call is longer than --short-below (50 us)"},
    {"launches", NULL, "delay_outliers", "launches delayed more than --delay-above (100 us)"},
    {"launches", "--by-rank", "rank", NULL},
    {"launches", "--each", "name", "the work launched"},
    {"launches", "--each", "launch_ns", "the launch call's start, after the trace's start"},
    {"launches", "--each", "cpu_ns", "the call's duration"},
    {"launches", "--each", "gpu_ns", "the work's duration"},
    {"launches", "--each", "delay_ns", "the launch delay, at least 0"},

    {"memops", NULL, "time_pct", "share of the total time of the rows listed"},
    {"memops", NULL, "total_ns", "the operations' summed duration"},
    {"memops", NULL, "count", "how many"},
    {"memops", NULL, "avg_ns", "mean duration"},
    {"memops", NULL, "med_ns", "median duration"},
    {"memops", NULL, "min_ns", "shortest"},
    {"memops", NULL, "max_ns", "longest"},
    {"memops", NULL, "total_bytes", "bytes copied or set"},
    {"memops", NULL, "avg_bytes", "mean bytes per operation"},
    {"memops", NULL, "min_bytes", "fewest bytes"},
    {"memops", NULL, "max_bytes", "most bytes"},
    {"memops", NULL, "bandwidth_gbps", "total bytes over total time"},
    {"memops", NULL, "operation", "the operation as the trace names it (Memcpy HtoD (Pinned -> Device))"},
    {"memops", NULL, "kind", "memcpy or memset"},
    {"memops", "--by-rank", "rank", NULL},
    {"memops", "--bandwidth", "rank", NULL},
    {"memops", "--bandwidth", "operation", "HTA's memory type (Memcpy HtoD, DtoH, DtoD, PtoP, Memset)"},
    {"memops", "--bandwidth", "samples", "the bandwidth's values where work starts or ends, the positive ones"},
    {"memops", "--bandwidth", "mean_gbps", "their mean (HTA's describe())"},
    {"memops", "--bandwidth", "std_gbps", "their standard deviation"},
    {"memops", "--bandwidth", "min_gbps", "the least"},
    {"memops", "--bandwidth", "p25_gbps", "25th percentile"},
    {"memops", "--bandwidth", "p50_gbps", "median"},
    {"memops", "--bandwidth", "p75_gbps", "75th percentile"},
    {"memops", "--bandwidth", "max_gbps", "the most"},
    {"memops", "--bandwidth", "weighted_mean_gbps", "the mean weighted by how long each value lasted, over busy_ns"},
    {"memops", "--bandwidth", "busy_ns", "time some work of the type runs"},
    {"memops", "--bandwidth --timeline", "rank", NULL},
    {"memops", "--bandwidth --timeline", "operation", "HTA's memory type"},
    {"memops", "--bandwidth --timeline", "ts_ns", "from this time after the trace's start to the next row's"},
    {"memops", "--bandwidth --timeline", "gbps", "the concurrent bandwidth"},

    {"memory", NULL, "device", "the device, or the host (cpu)"},
    {"memory", NULL, "peak_allocated_bytes", "the highest bytes allocated (Total Allocated, or the running sum)"},
    {"memory", NULL, "peak_allocated_ns", "when, after the trace's start"},
    {"memory", NULL, "peak_reserved_bytes", "the highest bytes the caching allocator reserved (Total Reserved)"},
    {"memory", NULL, "fragmentation_pct", "reserved minus allocated, at their peaks, as a share of reserved"},
    {"memory", NULL, "peak_op", "the operator running at the peak"},
    {"memory", NULL, "leaked_bytes", "allocations never freed by the end"},
    {"memory", NULL, "allocs", "allocations"},
    {"memory", NULL, "frees", "frees"},
    {"memory", NULL, "allocated_bytes", "bytes allocated"},
    {"memory", NULL, "freed_bytes", "bytes freed"},
    {"memory", "--by-op", "name", "the operator"},
    {"memory", "--by-op", "self_cpu_allocated_bytes", "host bytes allocated directly inside it"},
    {"memory", "--by-op", "self_cpu_freed_bytes", "host bytes freed directly inside it"},
    {"memory", "--by-op", "self_device_allocated_bytes", "device bytes allocated directly inside it"},
    {"memory", "--by-op", "self_device_freed_bytes", "device bytes freed directly inside it"},
    {"memory", "--by-op", "cpu_mem_bytes", "PyTorch's CPU Mem: host bytes allocated minus freed within it"},
    {"memory", "--by-op", "self_cpu_mem_bytes", "PyTorch's Self CPU Mem: that less its children's"},
    {"memory", "--by-op", "device_mem_bytes", "PyTorch's CUDA Mem: device bytes allocated minus freed within it"},
    {"memory", "--by-op", "self_device_mem_bytes", "PyTorch's Self CUDA Mem: that less its children's"},
    {"memory", "--timeline", "device", NULL},
    {"memory", "--timeline", "ts_ns", "the [memory] event's time, after the trace's start"},
    {"memory", "--timeline", "bytes", "its bytes: allocated (positive) or freed (negative)"},
    {"memory", "--timeline", "allocated_bytes", "bytes allocated after it"},
    {"memory", "--timeline", "reserved_bytes", "bytes reserved after it, where the trace gives them"},

    {"ops", NULL, "name", "the operator, range or call (ProfilerStep#N as ProfilerStep*)"},
    {"ops", NULL, "calls", "calls, as PyTorch counts them"},
    {"ops", NULL, "self_cpu_ns", "duration less the direct children's (PyTorch's Self CPU)"},
    {"ops", NULL, "self_cpu_pct", "self_cpu_ns as a share of every row's self CPU time"},
    {"ops", NULL, "cpu_total_ns", "whole durations (CPU total)"},
    {"ops", NULL, "cpu_total_pct", "cpu_total_ns as a share of every row's self CPU time"},
    {"ops", NULL, "cpu_avg_ns", "cpu_total_ns over calls"},
    {"ops", NULL, "self_device_ns", "GPU work its own runtime calls launched (Self CUDA)"},
    {"ops", NULL, "self_device_pct", "self_device_ns as a share of the device rows' time"},
    {"ops", NULL, "device_total_ns", "GPU work it and everything below it launched (CUDA total)"},
    {"ops", NULL, "device_avg_ns", "device_total_ns over calls"},
    {"ops", NULL, "cpu_mem_bytes", "host bytes allocated minus freed within it (CPU Mem)"},
    {"ops", NULL, "self_cpu_mem_bytes", "that less its children's (Self CPU Mem)"},
    {"ops", NULL, "device_mem_bytes", "device bytes allocated minus freed within it (CUDA Mem)"},
    {"ops", NULL, "self_device_mem_bytes", "that less its children's (Self CUDA Mem)"},
    {"ops", NULL, "flops", "with --with-flops: PyTorch's FLOPs for the calls"},
    {"ops", NULL, "input_shapes", "with --group-by shape: the inputs' shapes (Input Dims)"},
    {"ops", NULL, "stack", "with --group-by stack: the Python frames above it"},
    {"ops", "--by-rank", "rank", NULL},
    {"ops", "--by-step", "step", NULL},

    {"overlap", NULL, "rank", NULL},
    {"overlap", NULL, "device", NULL},
    {"overlap", NULL, "comm_ns", "time communication kernels run"},
    {"overlap", NULL, "compute_ns", "time computation kernels run"},
    {"overlap", NULL, "overlap_ns", "time both run"},
    {"overlap", NULL, "overlap_pct", "overlap_ns as a share of comm_ns"},

    {"queue", NULL, "rank", NULL},
    {"queue", NULL, "device", NULL},
    {"queue", NULL, "stream", NULL},
    {"queue", NULL, "samples", "changes of the queue's length (launches queued, not yet started)"},
    {"queue", NULL, "max_queue", "the longest queue"},
    {"queue", NULL, "mean_queue", "mean length, weighted by how long each lasted"},
    {"queue", NULL, "sample_mean", "mean of the samples, each alike (HTA's)"},
    {"queue", NULL, "p50_queue", "median of the samples"},
    {"queue", NULL, "min_queue", "the shortest queue"},
    {"queue", NULL, "blocked_ns", "time with --blocked-at (1024) or more queued"},
    {"queue", NULL, "blocked_pct", "blocked_ns as a share of the stream's span"},
    {"queue", "--timeline", "rank", NULL},
    {"queue", "--timeline", "device", NULL},
    {"queue", "--timeline", "stream", NULL},
    {"queue", "--timeline", "ts_ns", "the change's time, after the trace's start"},
    {"queue", "--timeline", "queue", "the queue's length from then"},

    {"ranks", NULL, "step", "the step number (ProfilerStep#N)"},
    {"ranks", NULL, "ranks", "ranks that ran it"},
    {"ranks", NULL, "min_ns", "the fastest rank's duration"},
    {"ranks", NULL, "median_ns", "the median rank's duration"},
    {"ranks", NULL, "max_ns", "the slowest rank's duration"},
    {"ranks", NULL, "slowest_rank", "which rank was slowest"},
    {"ranks", NULL, "straggle_ns", "how far it trailed the median"},

    {"summary", "trace", "source_file", "the trace imported (or how many, for a merged job)"},
    {"summary", "trace", "traces", "traces imported"},
    {"summary", "trace", "status", "complete, or a recording not closed"},
    {"summary", "trace", "events", "events"},
    {"summary", "trace", "span_ns", "from the first event's start to the last one's end"},
    {"summary", "trace", "tracks", "threads and streams"},
    {"summary", "trace", "ranks", "ranks, where the traces name them"},
    {"summary", "trace", "world_size", "the job's world size, where the traces name it"},
    {"summary", "kinds", "kind", "the event kind"},
    {"summary", "kinds", "events", "events of the kind"},
    {"summary", "kinds", "total_ns", "their summed duration"},
    {"summary", "devices", "device", NULL},
    {"summary", "devices", "name", "the GPU's model"},
    {"summary", "devices", "memory_bytes", "its memory"},
    {"summary", "devices", "gpu_events", "kernels, memcpy and memset on it"},
    {"summary", "devices", "kernel_ns", "its kernels' summed duration"},
    {"summary", "ops", "name", "as tracedb ops: the top operators by self CPU time"},
    {"summary", "ops", "calls", "calls, as PyTorch counts them"},
    {"summary", "ops", "self_cpu_ns", "duration less the direct children's"},
    {"summary", "ops", "cpu_total_ns", "whole durations"},
    {"summary", "ops", "self_device_ns", "GPU work its own calls launched"},
    {"summary", "ops", "device_total_ns", "GPU work it and everything below it launched"},
    {"summary", "kernels", "name", "the kernels with the most device time"},
    {"summary", "kernels", "calls", "how many ran"},
    {"summary", "kernels", "total_ns", "their summed duration"},
    {"summary", "kernels", "avg_ns", "mean duration"},
    {"summary", "latency", "name", "as tracedb latency: steps, or the inferences of a trace with none"},
    {"summary", "latency", "count", "instances"},
    {"summary", "latency", "min_ns", "shortest"},
    {"summary", "latency", "max_ns", "longest"},
    {"summary", "latency", "mean_ns", "mean"},
    {"summary", "latency", "median_ns", "median"},
    {"summary", "latency", "p90_ns", "90th percentile"},
    {"summary", "latency", "p95_ns", "95th percentile"},
    {"summary", "latency", "p97_ns", "97th percentile"},
    {"summary", "latency", "p99_ns", "99th percentile"},
    {"summary", "latency", "p999_ns", "99.9th percentile"},
    {"summary", "device", "device", NULL},
    {"summary", "device", "span_ns", "from its first GPU event's start to its last one's end"},
    {"summary", "device", "busy_ns", "time any GPU work runs"},
    {"summary", "device", "run_ns", "time computation kernels run"},
    {"summary", "device", "io_wait_ns", "busy minus run"},
    {"summary", "device", "idle_ns", "span minus busy"},
    {"summary", "device", "run_pct", "run_ns as a share of the span"},
    {"summary", "device", "io_wait_pct", "io_wait_ns as a share of the span"},
    {"summary", "device", "idle_pct", "idle_ns as a share of the span"},
    {"summary", "memory", "device", "the device, or the host (cpu)"},
    {"summary", "memory", "peak_allocated_bytes", "the highest bytes allocated"},
    {"summary", "memory", "peak_reserved_bytes", "the highest bytes reserved"},
    {"summary", "memory", "fragmentation_pct", "reserved minus allocated at their peaks, as a share of reserved"},
    {"summary", "memory", "allocs", "allocations"},
    {"summary", "memory", "frees", "frees"},
    {"summary", "gpu_efficiency", "trace_rank", "the rank"},
    {"summary", "gpu_efficiency", "device", "the GPU (a row per rank and device, as tracedb overlap and idle give them)"},
    {"summary", "gpu_efficiency", "comm_overlap_pct", "communication overlapped by computation (tracedb overlap's overlap_pct)"},
    {"summary", "gpu_efficiency", "idle_ns", "GPU idle time over the device's streams (tracedb idle's, summed)"},
    {"summary", "gpu_efficiency", "host_wait_pct", "of it, waiting for the host"},
    {"summary", "gpu_efficiency", "kernel_wait_pct", "of it, short gaps between kernels"},
    {"summary", "gpu_efficiency", "other_pct", "of it, the rest"},
    {"summary", "gpu_efficiency", "worst_launch_delay_ns", "the longest launch delay of work on this device (launches' delay_max_ns)"},
    {"summary", "gpu_efficiency", "worst_launch_delay_kernel", "the kernel it delayed"},
};

#define N_DOCS (sizeof column_docs / sizeof column_docs[0])

/* Whether the header ends with the unit ("Time %" and "%"). */
static int header_says_unit(const char *head, const char *unit)
{
    size_t h = strlen(head), u = strlen(unit);
    return u && h >= u && strcmp(head + h - u, unit) == 0;
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Prints the sort keys: the names --sort accepts, those naming one column together ("a or b"). */
static void print_sort_keys(const char *const *keys, FILE *out)
{
    for (size_t i = 0; keys[i]; i += 2) {
        int first = 1;
        for (size_t j = 0; j < i && first; j += 2)
            first = strcmp(keys[j + 1], keys[i + 1]) != 0;
        if (!first)
            continue;
        fprintf(out, "%s%s", i ? ", " : "", keys[i]);
        for (size_t j = i + 2; keys[j]; j += 2)
            if (strcmp(keys[j + 1], keys[i + 1]) == 0)
                fprintf(out, " or %s", keys[j]);
    }
}

/* One column's line: its name, the table's header and unit, its meaning, wrapped at the width. */
static void print_column(const struct column_doc *d, FILE *out, size_t width)
{
    const char *meaning = d->meaning;
    for (size_t k = 0; !meaning && k < N_DOCS; k++)
        if (!column_docs[k].command && strcmp(column_docs[k].name, d->name) == 0)
            meaning = column_docs[k].meaning;
    char head[128], line[512];
    render_header(d->name, head, sizeof head);
    const char *unit = render_unit(d->name);
    if (header_says_unit(head, unit)) /* "Time %", "FLOPs": the header says it */
        unit = "";
    snprintf(line, sizeof line, "    %s (%s%s%s): %s", d->name, head, *unit ? ", " : "", unit, meaning ? meaning : "");
    render_wrapped(out, line, width, 8);
}

void cli_columns_help(const struct cli *cli, FILE *out)
{
    size_t width = render_width(out);
    if (cli->sort_keys && cli->sort_keys[0].keys) {
        fprintf(out, "\nsort keys (--sort):");
        for (const struct cli_sort_keys *s = cli->sort_keys; s->keys; s++) {
            fprintf(out, s->mode ? "\n    with %s: " : " ", s->mode);
            print_sort_keys(s->keys, out);
        }
        fputc('\n', out);
    }
    int any = 0;
    for (size_t i = 0; i < N_DOCS; i++) {
        const struct column_doc *d = &column_docs[i];
        if (!cli->command || !d->command || strcmp(d->command, cli->command) != 0)
            continue;
        if (!any++) {
            fputc('\n', out);
            render_wrapped(out, "columns, as csv and json name them (the table's header and unit in parentheses; "
                                "tables show ns as us, ms or s, and bytes as KB, MB or GB of 1000 bytes, but ops "
                                "as PyTorch's Kb, Mb or Gb of 1024):",
                           width, 4);
        }
        if (d->mode && (i == 0 || !same(column_docs[i - 1].mode, d->mode) || !same(column_docs[i - 1].command, d->command)))
            fprintf(out, "  %s %s:\n", strcmp(d->command, "summary") == 0 ? "section" : "with", d->mode);
        print_column(d, out, width);
    }
}
