-- launches: per GPU kernel (and memcpy/memset) name, its launches as HTA's get_cuda_kernel_launch_stats
-- counts them: the launch calls cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync
-- (and MTIA's runFunction), paired with the GPU work they launched. cpu = the launch call's duration,
-- gpu = the work's, delay = the work's start minus the end of the call, clipped at 0. short_kernels:
-- call <= :short_below and the work shorter than its call; runtime_outliers: call > :short_below;
-- delay_outliers: delay > :delay_above (HTA: 50 us and 100 us).
WITH l AS ({sql:launch_pairs})
SELECT rank, name, count(*) AS launches, CAST(round(avg(cpu_ns)) AS INTEGER) AS cpu_avg_ns,
       CAST(round(avg(gpu_ns)) AS INTEGER) AS gpu_avg_ns, CAST(round(avg(delay_ns)) AS INTEGER) AS delay_avg_ns,
       CAST(round(median(delay_ns)) AS INTEGER) AS delay_p50_ns, CAST(round(percentile(delay_ns, 99)) AS INTEGER) AS delay_p99_ns,
       max(delay_ns) AS delay_max_ns,
       sum(cpu_ns <= :short_below AND gpu_ns < cpu_ns) AS short_kernels, sum(cpu_ns > :short_below) AS runtime_outliers,
       sum(delay_ns > :delay_above) AS delay_outliers
FROM l
GROUP BY rank, name
ORDER BY CASE :sort WHEN 'launches' THEN count(*) WHEN 'delay_max_ns' THEN max(delay_ns) WHEN 'name' THEN 0
                    ELSE avg(delay_ns) END DESC, rank, name
LIMIT :limit;
