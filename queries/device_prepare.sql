-- device_prepare: the GPU work of the scope, classified as HTA does by name, in a temp table indexed
-- for the per-window lookups of device.sql. The rule is the import's own (device_time_class in
-- recorder/store/device_time.c, as SQL function tdb_device_class): communication ^nccl|ncclKernel|^hccl;
-- memory: memcpy/memset events and ^(hip)?Memcpy|Memset|^dma; everything else computation. Each distinct
-- name is classified once.
CREATE TEMP TABLE gpu AS
WITH names AS (
  SELECT DISTINCT st.kind, st.name_id FROM event_stats st WHERE st.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset})
),
classes AS MATERIALIZED (
  SELECT x.kind, x.name_id,
         tdb_device_class(x.kind, n.value) AS class
  FROM names x JOIN string n ON n.id = x.name_id
)
SELECT p.trace_id, e.device, e.start_ns AS s, e.start_ns + e.dur_ns AS e, c.class
FROM scope_event e
JOIN classes c ON c.kind = e.kind AND c.name_id = e.name_id
JOIN thread t ON t.id = e.thread_id JOIN process p ON p.id = t.process_id
WHERE e.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}) AND e.device IS NOT NULL AND e.dur_ns > 0;
CREATE INDEX temp.gpu_device_start ON gpu(trace_id, device, s);
CREATE TEMP TABLE gpu_maxdur AS SELECT coalesce(max(e - s), 0) AS d FROM gpu;
