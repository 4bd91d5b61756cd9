-- launches: per GPU kernel (and memcpy/memset) name, its launches as HTA's get_cuda_kernel_launch_stats
-- counts them: the launch calls cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync
-- (and MTIA's runFunction), paired with the GPU work they launched. cpu = the launch call's duration,
-- gpu = the work's, delay = the work's start minus the end of the call, clipped at 0. short_kernels:
-- call <= :short_below and the work shorter than its call; runtime_outliers: call > :short_below;
-- delay_outliers: delay > :delay_above (HTA: 50 us and 100 us).
-- Grouped by name id (a sort of integers, not of kernel names), named after.
WITH l AS ({sql:launch_pairs}),
g AS (
  SELECT rank, name_id, count(*) AS launches, CAST(round(avg(cpu_ns)) AS INTEGER) AS cpu_avg_ns,
         CAST(round(avg(gpu_ns)) AS INTEGER) AS gpu_avg_ns, avg(delay_ns) AS delay_avg,
         CAST(round(median(delay_ns)) AS INTEGER) AS delay_p50_ns, CAST(round(percentile(delay_ns, 99)) AS INTEGER) AS delay_p99_ns,
         max(delay_ns) AS delay_max_ns,
         sum(cpu_ns <= :short_below AND gpu_ns < cpu_ns) AS short_kernels, sum(cpu_ns > :short_below) AS runtime_outliers,
         sum(delay_ns > :delay_above) AS delay_outliers
  FROM l
  GROUP BY rank, name_id
)
SELECT rank, s.value AS name, launches, cpu_avg_ns, gpu_avg_ns, CAST(round(delay_avg) AS INTEGER) AS delay_avg_ns,
       delay_p50_ns, delay_p99_ns, delay_max_ns, short_kernels, runtime_outliers, delay_outliers
FROM g JOIN string s ON s.id = g.name_id
ORDER BY CASE :sort WHEN 'launches' THEN launches WHEN 'delay_max_ns' THEN delay_max_ns WHEN 'name' THEN 0
                    ELSE delay_avg END DESC, rank, name
LIMIT :limit;
