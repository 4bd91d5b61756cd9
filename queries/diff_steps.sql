-- diff_steps: step latency (ProfilerStep#N) of both runs side by side: count, median, p25, p75, IQR,
-- p90, p99, max; change of the median in ns and %, and the two-sided Mann-Whitney U p-value of the
-- step times (as the gate's: below 0.05, the steps did change). Medians and percentiles are cut to whole
-- ns as `tracedb latency` cuts them (parts/latency_stats.sql); the change of the median is the change
-- of the two medians shown.
WITH s AS ({sql:step_times}),
r AS (
  SELECT run, count(*) AS count, median(dur_ns) AS med, percentile(dur_ns, 25) AS p25, percentile(dur_ns, 75) AS p75,
         percentile(dur_ns, 90) AS p90, percentile(dur_ns, 99) AS p99, max(dur_ns) AS mx
  FROM s GROUP BY run
)
SELECT NULL AS rank, r.run, r.count, CAST(r.med AS INTEGER) AS median_ns, CAST(r.p25 AS INTEGER) AS p25_ns,
       CAST(r.p75 AS INTEGER) AS p75_ns, CAST(r.p75 - r.p25 AS INTEGER) AS iqr_ns,
       CAST(r.p90 AS INTEGER) AS p90_ns, CAST(r.p99 AS INTEGER) AS p99_ns, r.mx AS max_ns,
       CASE WHEN r.run = 'new' THEN CAST(r.med AS INTEGER) - CAST(b.med AS INTEGER) END AS delta_median_ns,
       CASE WHEN r.run = 'new' THEN round(100.0 * (r.med - b.med) / nullif(b.med, 0), 2) END AS delta_median_pct,
       CASE WHEN r.run = 'new' THEN (SELECT mann_whitney_p(run = 'new', dur_ns) FROM s) END AS p_value
FROM r LEFT JOIN r b ON b.run = 'base'
ORDER BY r.run;
