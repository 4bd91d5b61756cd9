-- kernels_summed: `tracedb kernels`: GPU work per name, as `nsys stats --report cuda_gpu_kern_sum`
-- shows it: share of the total time of the rows listed (per rank with --by-rank), total, instances,
-- average, median, min, max and standard deviation (sample, n - 1), integer ns (rounded), from the sums
-- of its C pass (analyzer/report/kernel_sweep.c over kernel_rows.sql or kernel_launch_rows.sql, temp
-- table kernel_stats: rank, name_id, kind, launch, example, instances, total_ns, avg_ns, med_ns,
-- min_ns, max_ns, stddev_ns). :group_by 'launch' splits names by grid, block, registers and shared
-- memory. With :by_step the first column holds the step (temp.scope_steps) the work's launch (or the
-- work itself) starts in, and :limit keeps the first rows of each step.
WITH agg AS (SELECT * FROM temp.kernel_stats),
{sql:kernels_rows};
