-- api_tail: what api_summed.sql prints from agg (rank, name_id, kind, calls, total_ns, avg_ns,
-- med_ns, min_ns, max_ns, stddev_ns): share of the time listed, statistics in integer ns, order, limit.
SELECT rank, round(100.0 * total_ns / sum(total_ns) OVER (PARTITION BY rank), 2) AS time_pct,
       total_ns, calls, CAST(round(avg_ns) AS INTEGER) AS avg_ns, CAST(round(med_ns) AS INTEGER) AS med_ns,
       min_ns, max_ns, CAST(round(stddev_ns) AS INTEGER) AS stddev_ns, s.value AS name,
       CASE kind WHEN {kind:runtime} THEN 'runtime' ELSE 'driver' END AS api
FROM agg JOIN string s ON s.id = agg.name_id
ORDER BY CASE :sort WHEN 'calls' THEN calls WHEN 'avg_ns' THEN avg_ns WHEN 'max_ns' THEN max_ns
                    WHEN 'name' THEN 0 ELSE total_ns END DESC, rank, name
LIMIT :limit
