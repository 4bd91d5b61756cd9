-- memory_ops: bytes allocated and freed per operator: self (by [memory] events directly inside the
-- operator's events) and, from the import's sums, the net total including everything below it.
WITH m AS (
  SELECT o.name_id, mm.device_type <> 0 AS on_device, e.bytes
  FROM memory_event mm JOIN scope_event e ON e.id = mm.event_id JOIN event o ON o.id = e.parent_id
  WHERE e.bytes IS NOT NULL
)
SELECT NULL AS rank, n.value AS name,
       sum(CASE WHEN NOT on_device AND bytes > 0 THEN bytes ELSE 0 END) AS self_cpu_allocated_bytes,
       -sum(CASE WHEN NOT on_device AND bytes < 0 THEN bytes ELSE 0 END) AS self_cpu_freed_bytes,
       sum(CASE WHEN on_device AND bytes > 0 THEN bytes ELSE 0 END) AS self_device_allocated_bytes,
       -sum(CASE WHEN on_device AND bytes < 0 THEN bytes ELSE 0 END) AS self_device_freed_bytes,
       (SELECT sum(cpu_mem) FROM event_stats st WHERE st.name_id = m.name_id AND st.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver})) AS cpu_mem_bytes,
       (SELECT sum(device_mem) FROM event_stats st WHERE st.name_id = m.name_id AND st.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver})) AS device_mem_bytes
FROM m JOIN string n ON n.id = m.name_id
GROUP BY m.name_id
ORDER BY self_device_allocated_bytes + self_cpu_allocated_bytes DESC, name
LIMIT :limit;
