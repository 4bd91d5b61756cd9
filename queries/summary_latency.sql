-- summary_latency: step latency (ProfilerStep#N as ProfilerStep*), or else the repeated top-level
-- ranges. Percentiles interpolate linearly between closest ranks (numpy/pandas default).
WITH r AS (
  SELECT CASE WHEN s.value GLOB 'ProfilerStep#[0-9]*' THEN 'ProfilerStep*' ELSE s.value END AS name, e.dur_ns
  FROM event e JOIN string s ON s.id = e.name_id
  WHERE e.kind = {kind:range} AND (s.value GLOB 'ProfilerStep#[0-9]*' OR e.depth = 0)
)
SELECT name, count(*) AS count, min(dur_ns) AS min_ns,
       CAST(round(median(dur_ns)) AS INTEGER) AS median_ns,
       CAST(round(percentile(dur_ns, 90)) AS INTEGER) AS p90_ns,
       CAST(round(percentile(dur_ns, 99)) AS INTEGER) AS p99_ns,
       max(dur_ns) AS max_ns
FROM r
GROUP BY name
HAVING count(*) >= 2 OR name = 'ProfilerStep*'
ORDER BY name = 'ProfilerStep*' DESC, sum(dur_ns) DESC
LIMIT 5;
