-- memops_bandwidth: `tracedb memops --bandwidth`: HTA's memory bandwidth counters (get_memory_bw_summary):
-- per rank and memory type (HTA's: "Memcpy HtoD", "Memcpy DtoH", "Memcpy DtoD", "Memcpy PtoP", "Memset",
-- "Memcpy Unknown"; memory work by kernel_type()), the concurrent bandwidth: the sum of the "memory
-- bandwidth (GB/s)" the trace gives each copy or set that runs at the time (0 where it gives none, as
-- HTA fills it). The samples are its values where work starts or ends, the positive ones (HTA's describe(): count,
-- mean, std, min, quartiles, max); where HTA takes a sample at each op's start and end in an arbitrary
-- order at equal times, every change at one time is applied at once here (one sample, the value after
-- them), and the value is 0, not a float residue, when nothing runs. The honest average weighs each
-- value by how long it lasted: weighted_mean_gbps over busy_ns, the time some work of the type runs.
WITH {sql:membw_steps}
SELECT rank, op AS operation, count(*) FILTER (WHERE gbps > 0) AS samples,
       round(avg(CASE WHEN gbps > 0 THEN gbps END), 6) AS mean_gbps,
       round(stddev(CASE WHEN gbps > 0 THEN gbps END), 6) AS std_gbps,
       round(min(CASE WHEN gbps > 0 THEN gbps END), 6) AS min_gbps,
       round(percentile(CASE WHEN gbps > 0 THEN gbps END, 25), 6) AS p25_gbps,
       round(median(CASE WHEN gbps > 0 THEN gbps END), 6) AS p50_gbps,
       round(percentile(CASE WHEN gbps > 0 THEN gbps END, 75), 6) AS p75_gbps,
       round(max(CASE WHEN gbps > 0 THEN gbps END), 6) AS max_gbps,
       round(sum(CASE WHEN running > 0 THEN gbps * (next_t - t) END) / nullif(sum(CASE WHEN running > 0 THEN next_t - t END), 0), 6)
         AS weighted_mean_gbps,
       coalesce(sum(CASE WHEN running > 0 THEN next_t - t END), 0) AS busy_ns
FROM membw_series
GROUP BY rank, op
ORDER BY rank, operation
LIMIT :limit;
