-- api: runtime and driver API calls per name, as `nsys stats --report cuda_api_sum`: share of the
-- time listed, total, calls, average, median, min, max, stddev (integer ns).
WITH a AS (
  SELECT CASE WHEN :by_rank THEN {sql:rank_of_event} END AS rank,
         e.name_id, e.kind, e.dur_ns
  FROM scope_event e
  WHERE e.kind IN ({kind:runtime}, {kind:driver})
),
agg AS (
  SELECT rank, name_id, kind, count(*) AS calls, sum(dur_ns) AS total_ns, avg(dur_ns) AS avg_ns,
         median(dur_ns) AS med_ns, min(dur_ns) AS min_ns, max(dur_ns) AS max_ns, stddev(dur_ns) AS stddev_ns
  FROM a GROUP BY rank, name_id, kind
)
SELECT rank, round(100.0 * total_ns / sum(total_ns) OVER (PARTITION BY rank), 2) AS time_pct,
       total_ns, calls, CAST(round(avg_ns) AS INTEGER) AS avg_ns, CAST(round(med_ns) AS INTEGER) AS med_ns,
       min_ns, max_ns, CAST(round(stddev_ns) AS INTEGER) AS stddev_ns, s.value AS name,
       CASE kind WHEN {kind:runtime} THEN 'runtime' ELSE 'driver' END AS api
FROM agg JOIN string s ON s.id = agg.name_id
ORDER BY CASE :sort WHEN 'calls' THEN calls WHEN 'avg_ns' THEN avg_ns WHEN 'max_ns' THEN max_ns
                    WHEN 'name' THEN 0 ELSE total_ns END DESC, rank, name
LIMIT :limit;
