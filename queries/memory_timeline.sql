-- memory_timeline: allocated and reserved bytes over time per device, one row per [memory] event,
-- for plotting (csv/json). Times are ns after the trace's first event.
SELECT NULL AS rank,
       CASE mm.device_type WHEN 0 THEN 'cpu' WHEN 1 THEN 'cuda:' || coalesce(e.device, '?')
                           ELSE 'device type ' || mm.device_type || ':' || coalesce(e.device, '?') END AS device,
       e.start_ns - coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS ts_ns, e.bytes,
       coalesce(mm.total_allocated,
                sum(e.bytes) OVER (PARTITION BY mm.device_type, e.device ORDER BY e.start_ns, e.id)) AS allocated_bytes,
       mm.total_reserved AS reserved_bytes
FROM memory_event mm JOIN scope_event e ON e.id = mm.event_id
ORDER BY mm.device_type, e.device, e.start_ns, e.id
LIMIT :limit;
