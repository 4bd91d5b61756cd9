-- api_summed: `tracedb api` (api.sql) from the sums of its C pass (analyzer/report/kernel_sweep.c,
-- temp table kernel_stats).
WITH agg AS (
  SELECT rank, name_id, kind, instances AS calls, total_ns, avg_ns, med_ns, min_ns, max_ns, stddev_ns
  FROM temp.kernel_stats
)
{sql:api_tail};
