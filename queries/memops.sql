-- memops: memcpy and memset by operation (the event name, e.g. "Memcpy HtoD (Pinned -> Device)"),
-- as `nsys stats` cuda_gpu_mem_time_sum and cuda_gpu_mem_size_sum together: time share, total time,
-- count, average/median/min/max time, total and average bytes, and bandwidth (total bytes over
-- total time, GB/s = bytes per ns).
WITH m AS (
  SELECT CASE WHEN :by_rank THEN {sql:rank_of_event} END AS rank,
         e.name_id, e.kind, e.dur_ns, e.bytes
  FROM scope_event e
  WHERE e.kind IN ({kind:memcpy}, {kind:memset})
),
agg AS (
  SELECT rank, name_id, kind, count(*) AS count, sum(dur_ns) AS total_ns, avg(dur_ns) AS avg_ns,
         median(dur_ns) AS med_ns, min(dur_ns) AS min_ns, max(dur_ns) AS max_ns,
         sum(bytes) AS total_bytes, avg(bytes) AS avg_bytes, min(bytes) AS min_bytes, max(bytes) AS max_bytes
  FROM m GROUP BY rank, name_id, kind
)
SELECT rank, round(100.0 * total_ns / sum(total_ns) OVER (PARTITION BY rank), 2) AS time_pct,
       total_ns, count, CAST(round(avg_ns) AS INTEGER) AS avg_ns, CAST(round(med_ns) AS INTEGER) AS med_ns,
       min_ns, max_ns, total_bytes, CAST(round(avg_bytes) AS INTEGER) AS avg_bytes, min_bytes, max_bytes,
       round(1.0 * total_bytes / nullif(total_ns, 0), 3) AS bandwidth_gbps, s.value AS operation,
       CASE kind WHEN {kind:memcpy} THEN 'memcpy' ELSE 'memset' END AS kind
FROM agg JOIN string s ON s.id = agg.name_id
ORDER BY CASE :sort WHEN 'count' THEN count WHEN 'total_bytes' THEN total_bytes WHEN 'name' THEN 0
                    ELSE total_ns END DESC, rank, operation
LIMIT :limit;
