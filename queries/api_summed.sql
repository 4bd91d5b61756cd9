-- api_summed: `tracedb api`: runtime and driver API calls per name, as `nsys stats --report
-- cuda_api_sum`: share of the time listed, total, calls, average, median, min, max, stddev (integer
-- ns), from the sums of its C pass (analyzer/report/kernel_sweep.c over api_rows.sql, temp table
-- kernel_stats).
WITH agg AS (
  SELECT rank, name_id, kind, instances AS calls, total_ns, avg_ns, med_ns, min_ns, max_ns, stddev_ns
  FROM temp.kernel_stats
)
{sql:api_tail};
