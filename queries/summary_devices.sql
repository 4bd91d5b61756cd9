-- summary_devices: each device the trace names, with its GPU work.
SELECT d.id AS device, d.name,
       json_extract(d.properties, '$.totalGlobalMem') AS memory_bytes,
       (SELECT count(*) FROM event e WHERE e.kind IN (7, 8, 9) AND e.device = d.id) AS gpu_events,
       (SELECT sum(e.dur_ns) FROM event e WHERE e.kind = 7 AND e.device = d.id) AS kernel_ns
FROM device d
ORDER BY d.trace_id, d.id;
