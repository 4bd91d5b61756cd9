-- kernels_patterns_summed: `tracedb kernels --patterns`'s rows as its C pass (analyzer/report/pattern_sweep.c)
-- left them in temp.pattern_stats, in queries/kernels_patterns.sql's order.
SELECT rank, count, kernels, gpu_ns, cpu_ns, pattern
FROM temp.pattern_stats
ORDER BY rank, count DESC, pattern
LIMIT :limit;
