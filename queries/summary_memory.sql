-- summary_memory: peak allocated and reserved bytes per device, from [memory] events' running totals.
SELECT CASE m.device_type WHEN 0 THEN 'cpu' WHEN 1 THEN 'cuda:' || e.device
                          ELSE 'type ' || m.device_type || ':' || e.device END AS device,
       max(m.total_allocated) AS peak_allocated_bytes,
       max(m.total_reserved) AS peak_reserved_bytes,
       count(*) AS events
FROM event e JOIN memory_event m ON m.event_id = e.id
WHERE e.kind = 11
GROUP BY m.device_type, e.device
ORDER BY m.device_type, e.device;
