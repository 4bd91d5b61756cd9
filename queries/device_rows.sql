-- device_rows: the GPU work of the scope for `tracedb device`'s C pass (analyzer/report/device_sweep.c),
-- unsorted: trace, device, start, end and whether it is computation, classified as HTA does by name with
-- the import's own rule (device_time_class in recorder/store/device_time.c, as SQL function
-- tdb_device_class): communication ^nccl|ncclKernel|^hccl; memory: memcpy/memset events and
-- ^(hip)?Memcpy|Memset|^dma; everything else computation. Each distinct name is classified once.
WITH names AS (
  SELECT DISTINCT st.kind, st.name_id FROM event_stats st WHERE st.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset})
),
classes AS MATERIALIZED (
  SELECT x.kind, x.name_id, tdb_device_class(x.kind, n.value) = 'computation' AS compute
  FROM names x JOIN string n ON n.id = x.name_id
)
SELECT p.trace_id, e.device, e.start_ns, e.start_ns + e.dur_ns, c.compute
FROM scope_event e
JOIN classes c ON c.kind = e.kind AND c.name_id = e.name_id
JOIN thread t ON t.id = e.thread_id JOIN process p ON p.id = t.process_id
WHERE e.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}) AND e.device IS NOT NULL AND e.dur_ns > 0;
