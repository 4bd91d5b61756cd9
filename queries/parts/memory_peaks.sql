SELECT (SELECT rank FROM trace WHERE id = a.trace_id) AS rank,
       CASE a.device_type WHEN 0 THEN 'cpu' WHEN 1 THEN 'cuda:' || coalesce(a.device, '?')
                          ELSE 'device type ' || a.device_type || ':' || coalesce(a.device, '?') END AS device,
       a.peak_allocated AS peak_allocated_bytes,
       a.peak_ns - coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS peak_allocated_ns,
       a.peak_reserved AS peak_reserved_bytes,
       round(100.0 * (a.peak_reserved - a.peak_allocated) / nullif(a.peak_reserved, 0), 2) AS fragmentation_pct,
       (SELECT n.value FROM event o JOIN string n ON n.id = o.name_id WHERE o.id = a.peak_parent) AS peak_op,
       a.leaked AS leaked_bytes,
       a.allocs, a.frees, a.allocated_bytes, a.freed_bytes
FROM temp.memory_agg a
ORDER BY a.trace_id, a.device_type, a.device
