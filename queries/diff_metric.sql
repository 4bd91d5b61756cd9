-- diff_metric: the value of one regression metric in each run, for `tracedb diff --fail-above`:
-- step_median, step_p99 (ProfilerStep#N durations), kernel_total (device time of kernels),
-- device_busy (union of GPU work over all devices), memory_peak (the highest of the run's peak allocated
-- bytes that `tracedb memory` prints, per trace and device: temp.diff_memory_peaks, diff_gate.c).
-- Also each run's step count and interquartile range, for the noise check.
WITH s AS ({sql:step_times}),
steps AS (SELECT run, count(*) AS n, median(dur_ns) AS med, percentile(dur_ns, 99) AS p99,
                 percentile(dur_ns, 75) - percentile(dur_ns, 25) AS iqr FROM s GROUP BY run),
v AS (
  SELECT 'base' AS run,
         (SELECT sum(total_ns) FROM main.event_stats WHERE kind = {kind:kernel}) AS kernel_total,
         (SELECT sum(busy_ns) FROM main.device_stats) AS device_busy,
         (SELECT max(peak_allocated_bytes) FROM temp.diff_memory_peaks WHERE run = 'base') AS memory_peak
  UNION ALL
  SELECT 'new', (SELECT sum(total_ns) FROM new.event_stats WHERE kind = {kind:kernel}), (SELECT sum(busy_ns) FROM new.device_stats),
         (SELECT max(peak_allocated_bytes) FROM temp.diff_memory_peaks WHERE run = 'new')
)
SELECT v.run,
       CASE :metric WHEN 'step_median' THEN s.med WHEN 'step_p99' THEN s.p99 WHEN 'kernel_total' THEN v.kernel_total
                    WHEN 'device_busy' THEN v.device_busy WHEN 'memory_peak' THEN v.memory_peak END AS value,
       coalesce(s.n, 0) AS steps, s.iqr
FROM v LEFT JOIN steps s ON s.run = v.run
ORDER BY v.run;
