-- launches: per GPU kernel (and memcpy/memset) name, its launches as HTA's get_cuda_kernel_launch_stats
-- counts them: the launch calls cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync
-- (and MTIA's runFunction), paired with the GPU work they launched. cpu = the launch call's duration,
-- gpu = the work's, delay = the work's start minus the end of the call, clipped at 0. short_kernels:
-- call <= :short_below and the work shorter than its call; runtime_outliers: call > :short_below;
-- delay_outliers: delay > :delay_above (HTA: 50 us and 100 us).
-- The sums per rank and name come from one pass over the launches (analyzer/report/launch_sweep.c,
-- temp table launch_stats: averages as SQL's avg() gives them, the delay's median and 99th percentile
-- as percentile() does).
SELECT rank, s.value AS name, launches, CAST(round(cpu_avg) AS INTEGER) AS cpu_avg_ns,
       CAST(round(gpu_avg) AS INTEGER) AS gpu_avg_ns, CAST(round(delay_avg) AS INTEGER) AS delay_avg_ns,
       CAST(round(delay_p50) AS INTEGER) AS delay_p50_ns, CAST(round(delay_p99) AS INTEGER) AS delay_p99_ns,
       delay_max_ns, short_kernels, runtime_outliers, delay_outliers
FROM temp.launch_stats g JOIN string s ON s.id = g.name_id
ORDER BY CASE :sort WHEN 'launches' THEN launches WHEN 'delay_max_ns' THEN delay_max_ns WHEN 'name' THEN 0
                    ELSE delay_avg END DESC, rank, name
LIMIT :limit;
