-- summary_devices: each device the trace names, with its GPU work (kernels, memcpy, memset).
SELECT d.id AS device, d.name,
       json_extract(d.properties, '$.totalGlobalMem') AS memory_bytes,
       (SELECT sum(calls) FROM event_stats st WHERE st.trace_id = d.trace_id AND st.kind IN (7, 8, 9)
          AND st.device = d.id) AS gpu_events,
       (SELECT sum(total_ns) FROM event_stats st WHERE st.trace_id = d.trace_id AND st.kind = 7
          AND st.device = d.id) AS kernel_ns
FROM device d
ORDER BY d.trace_id, d.id;
