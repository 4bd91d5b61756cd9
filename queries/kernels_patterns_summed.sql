-- kernels_patterns_summed: `tracedb kernels --patterns NAME`: HTA's frequent CUDA kernel sequences
-- (get_frequent_cuda_kernel_sequences, its CallGraph): per rank, the host events whose name holds :name
-- (a substring, as HTA matches it) at the least call-stack depth among them (so that no root holds
-- another) with at least :min_kernels GPU operations launched under them (kernels, memcpy, memset);
-- each root's pattern is its name and its GPU operations' names in time order, joined by '|'. Per
-- pattern: count, kernels (its length), gpu_ns (the operations' time summed over the occurrences),
-- cpu_ns (the roots' time). Depth is HTA's: a thread's own nesting, except that when a rank has one
-- thread holding ProfilerStep#N (HTA's main stack) and one other holding autograd:: calls (its backward
-- stack), the backward thread's top-level calls inside a "## backward ##" annotation of the main
-- thread (else a ProfilerStep#N) count as that annotation's children, as HTA links them.
-- The rows as its C pass (analyzer/report/pattern_sweep.c) left them in temp.pattern_stats.
SELECT rank, count, kernels, gpu_ns, cpu_ns, pattern
FROM temp.pattern_stats
ORDER BY rank, count DESC, pattern
LIMIT :limit;
