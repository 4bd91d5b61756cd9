-- memory: high-water marks per device (and the host) from [memory] events:
--   peak_allocated_bytes  the highest "Total Allocated" (or, when the trace has no totals, the highest
--                         running sum of allocations minus frees), and when (ns after the trace start);
--   peak_reserved_bytes   the highest "Total Reserved" (the caching allocator's footprint), when given;
--   fragmentation_pct     (reserved - allocated) / reserved at their peaks: RAF's max used vs max
--                         allocated gap, a sign of fragmentation;
--   peak_op               the operator running at the peak (the event holding the [memory] event);
--   leaked_bytes          allocations never freed by the end (no later free of the same address);
--   allocs, frees, allocated_bytes, freed_bytes.
WITH m AS MATERIALIZED (
  SELECT e.id, p.trace_id, e.start_ns, e.bytes, e.parent_id, e.device, mm.device_type, mm.addr,
         mm.total_allocated, mm.total_reserved
  FROM memory_event mm JOIN scope_event e ON e.id = mm.event_id
  JOIN thread t ON t.id = e.thread_id JOIN process p ON p.id = t.process_id
),
m2 AS MATERIALIZED (
  SELECT m.*, coalesce(total_allocated,
                       sum(bytes) OVER (PARTITION BY trace_id, device_type, device ORDER BY start_ns, id)) AS allocated
  FROM m
),
peak AS (
  SELECT trace_id, device_type, device, allocated, start_ns, parent_id,
         row_number() OVER (PARTITION BY trace_id, device_type, device ORDER BY allocated DESC, start_ns) AS rn
  FROM m2
),
nxt AS (
  SELECT trace_id, device_type, device, bytes,
         lead(bytes) OVER (PARTITION BY trace_id, device_type, device, addr ORDER BY start_ns, id) AS next_bytes
  FROM m2 WHERE addr IS NOT NULL
),
leaks AS (
  SELECT trace_id, device_type, device, sum(bytes) AS leaked FROM nxt
  WHERE bytes > 0 AND (next_bytes IS NULL OR next_bytes > 0)
  GROUP BY trace_id, device_type, device
),
agg AS (
  SELECT trace_id, device_type, device, max(total_reserved) AS peak_reserved, count(*) AS events,
         sum(bytes > 0) AS allocs, sum(bytes < 0) AS frees,
         coalesce(sum(CASE WHEN bytes > 0 THEN bytes END), 0) AS allocated_bytes,
         coalesce(-sum(CASE WHEN bytes < 0 THEN bytes END), 0) AS freed_bytes
  FROM m2 GROUP BY trace_id, device_type, device
)
SELECT (SELECT rank FROM trace WHERE id = a.trace_id) AS rank,
       CASE a.device_type WHEN 0 THEN 'cpu' WHEN 1 THEN 'cuda:' || coalesce(a.device, '?')
                          ELSE 'device type ' || a.device_type || ':' || coalesce(a.device, '?') END AS device,
       p.allocated AS peak_allocated_bytes,
       p.start_ns - coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS peak_allocated_ns,
       a.peak_reserved AS peak_reserved_bytes,
       round(100.0 * (a.peak_reserved - p.allocated) / nullif(a.peak_reserved, 0), 2) AS fragmentation_pct,
       (SELECT n.value FROM event o JOIN string n ON n.id = o.name_id WHERE o.id = p.parent_id) AS peak_op,
       coalesce(l.leaked, 0) AS leaked_bytes,
       a.allocs, a.frees, a.allocated_bytes, a.freed_bytes
FROM agg a
JOIN peak p ON p.trace_id = a.trace_id AND p.device_type IS a.device_type AND p.device IS a.device AND p.rn = 1
LEFT JOIN leaks l ON l.trace_id = a.trace_id AND l.device_type IS a.device_type AND l.device IS a.device
ORDER BY a.trace_id, a.device_type, a.device
LIMIT :limit;
