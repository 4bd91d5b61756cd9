-- kernels_summed: `tracedb kernels` (kernels.sql) from the sums of its C pass (analyzer/report/kernel_sweep.c,
-- temp table kernel_stats: the same columns as kernels.sql's agg).
WITH agg AS (SELECT * FROM temp.kernel_stats),
{sql:kernels_rows};
