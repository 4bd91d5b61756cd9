-- memops_bandwidth_timeline: the series of `tracedb memops --bandwidth` (HTA's get_memory_bw_time_series):
-- per rank and memory type, the concurrent bandwidth from each time it changes (ns after the trace start;
-- every change at one time applied at once) until the next row's time.
WITH {sql:membw_steps}
SELECT rank, op AS operation,
       t - coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS ts_ns, round(gbps, 6) AS gbps
FROM membw_series
ORDER BY rank, operation, t
LIMIT :limit;
