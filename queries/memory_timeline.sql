-- memory_timeline: allocated and reserved bytes over time per trace and device, one row per [memory]
-- event, for plotting (csv/json). Allocated is the allocator's "Total Allocated", else the running sum of
-- bytes, per trace and device: the rule of `tracedb memory`'s peaks (memory_sweep.c). Times are ns after
-- the trace's first event.
SELECT (SELECT rank FROM trace WHERE id = p.trace_id) AS rank,
       CASE mm.device_type WHEN 0 THEN 'cpu' WHEN 1 THEN 'cuda:' || coalesce(e.device, '?')
                           ELSE 'device type ' || mm.device_type || ':' || coalesce(e.device, '?') END AS device,
       e.start_ns - coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS ts_ns, e.bytes,
       coalesce(mm.total_allocated,
                sum(e.bytes) OVER (PARTITION BY p.trace_id, mm.device_type, e.device ORDER BY e.start_ns, e.id)) AS allocated_bytes,
       mm.total_reserved AS reserved_bytes
FROM memory_event mm JOIN scope_event e ON e.id = mm.event_id
JOIN thread t ON t.id = e.thread_id JOIN process p ON p.id = t.process_id
ORDER BY p.trace_id, mm.device_type, e.device, e.start_ns, e.id
LIMIT :limit;
