-- ranks: step latency across ranks, to find stragglers: for each step number, how many ranks ran it,
-- the fastest, median and slowest rank's duration, which rank was slowest, and by how much it
-- trailed the median. From the step_ranks view (ProfilerStep#N per rank). The median is cut to whole ns
-- as `tracedb latency` cuts it (parts/latency_stats.sql).
WITH s AS (SELECT rank, step, dur_ns FROM step_ranks)
SELECT NULL AS rank, step, count(*) AS ranks, min(dur_ns) AS min_ns,
       CAST(median(dur_ns) AS INTEGER) AS median_ns, max(dur_ns) AS max_ns,
       (SELECT s2.rank FROM s s2 WHERE s2.step = s.step ORDER BY s2.dur_ns DESC, s2.rank LIMIT 1) AS slowest_rank,
       max(dur_ns) - CAST(median(dur_ns) AS INTEGER) AS straggle_ns
FROM s
GROUP BY step
ORDER BY CASE :sort WHEN 'straggle_ns' THEN -(max(dur_ns) - median(dur_ns)) ELSE step END
LIMIT :limit;
