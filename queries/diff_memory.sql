-- diff_memory: memory high-water marks of both runs side by side, per device (from the allocator's
-- running totals in [memory] events).
SELECT NULL AS rank, run, device, peak_allocated_bytes, peak_reserved_bytes
FROM (SELECT 'base' AS run,
             CASE m.device_type WHEN 0 THEN 'cpu' ELSE 'cuda:' || coalesce(e.device, '?') END AS device,
             max(m.total_allocated) AS peak_allocated_bytes, max(m.total_reserved) AS peak_reserved_bytes
      FROM main.memory_event m JOIN main.event e ON e.id = m.event_id GROUP BY 2
      UNION ALL
      SELECT 'new', CASE m.device_type WHEN 0 THEN 'cpu' ELSE 'cuda:' || coalesce(e.device, '?') END,
             max(m.total_allocated), max(m.total_reserved)
      FROM new.memory_event m JOIN new.event e ON e.id = m.event_id GROUP BY 2)
ORDER BY device, run;
