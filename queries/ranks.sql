-- ranks: step latency across ranks, to find stragglers: for each step number, how many ranks ran it,
-- the fastest, median and slowest rank's duration, which rank was slowest, and by how much it
-- trailed the median. The step_ranks view's rows (ProfilerStep#N per rank), read from the tables (a
-- database's own views are never run). The median is cut to whole ns
-- as `tracedb latency` cuts it (parts/latency_stats.sql).
WITH sr AS (
  SELECT t.rank, CAST(substr(s.value, 14) AS INTEGER) AS step, e.dur_ns
  FROM event e JOIN string s ON s.id = e.name_id
  JOIN thread th ON th.id = e.thread_id JOIN process p ON p.id = th.process_id JOIN trace t ON t.id = p.trace_id
  WHERE {sql:profiler_step})
SELECT NULL AS rank, step, count(*) AS ranks, min(dur_ns) AS min_ns,
       CAST(median(dur_ns) AS INTEGER) AS median_ns, max(dur_ns) AS max_ns,
       (SELECT s2.rank FROM sr s2 WHERE s2.step = sr.step ORDER BY s2.dur_ns DESC, s2.rank LIMIT 1) AS slowest_rank,
       max(dur_ns) - CAST(median(dur_ns) AS INTEGER) AS straggle_ns
FROM sr
GROUP BY step
ORDER BY CASE :sort WHEN 'straggle_ns' THEN -(max(dur_ns) - median(dur_ns)) ELSE step END
LIMIT :limit;
