-- launches_grouped: `tracedb launches` (see launches.sql for what each column is) in SQL alone, for keys
-- the C pass (analyzer/report/launch_sweep.c) does not take: a foreign database's text ranks.
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
