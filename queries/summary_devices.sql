-- summary_devices: the devices that did GPU work (kernels, memcpy, memset), with their properties; a trace
-- that lists eight GPUs of the machine but ran on one shows that one.
SELECT d.id AS device, d.name,
       json_extract(d.properties, '$.totalGlobalMem') AS memory_bytes,
       w.events AS gpu_events, w.kernel_ns
FROM device d
JOIN (SELECT trace_id, device, sum(calls) AS events, sum(CASE WHEN kind = {kind:kernel} THEN total_ns END) AS kernel_ns
      FROM event_stats WHERE kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}) GROUP BY trace_id, device) w
  ON w.trace_id = d.trace_id AND w.device = d.id
ORDER BY d.trace_id, d.id;
