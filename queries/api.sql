-- api: runtime and driver API calls per name, as `nsys stats --report cuda_api_sum`: share of the
-- time listed, total, calls, average, median, min, max, stddev (integer ns). The C pass (api_rows.sql,
-- api_summed.sql) gives the same; this is its way for ranks, names or kinds that are not integers.
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
{sql:api_tail};
