-- summary_memory: per device, the highest allocated and reserved bytes (the allocator's running
-- totals in [memory] events) and the gap between them at their peaks (fragmentation). The full
-- picture, with when, the operator at the peak and leaks: `tracedb memory`.
SELECT NULL AS rank,
       CASE m.device_type WHEN 0 THEN 'cpu' WHEN 1 THEN 'cuda:' || coalesce(e.device, '?')
                          ELSE 'device type ' || m.device_type || ':' || coalesce(e.device, '?') END AS device,
       max(m.total_allocated) AS peak_allocated_bytes, max(m.total_reserved) AS peak_reserved_bytes,
       round(100.0 * (max(m.total_reserved) - max(m.total_allocated)) / nullif(max(m.total_reserved), 0), 2) AS fragmentation_pct,
       count(*) AS events
FROM memory_event m JOIN event e ON e.id = m.event_id
GROUP BY m.device_type, e.device
ORDER BY m.device_type, e.device;
