-- device_prepare: the GPU work of the scope, classified as HTA does by name, in a temp table indexed
-- for the per-window lookups of device.sql.
--   communication: ^nccl|ncclKernel|^hccl; memory: memcpy/memset events and ^(hip)?Memcpy|Memset|^dma;
--   everything else: computation.
CREATE TEMP TABLE gpu AS
SELECT (SELECT p.trace_id FROM thread t JOIN process p ON p.id = t.process_id WHERE t.id = e.thread_id) AS trace_id,
       e.device, e.start_ns AS s, e.start_ns + e.dur_ns AS e,
       CASE WHEN e.kind IN (8, 9) OR n.value GLOB 'Memcpy*' OR n.value GLOB 'hipMemcpy*'
                 OR n.value GLOB '*Memset*' OR n.value GLOB 'dma*' THEN 'memory'
            WHEN n.value GLOB 'nccl*' OR n.value GLOB '*ncclKernel*' OR n.value GLOB 'hccl*' THEN 'communication'
            ELSE 'computation' END AS class
FROM scope_event e JOIN string n ON n.id = e.name_id
WHERE e.kind IN (7, 8, 9) AND e.device IS NOT NULL AND e.dur_ns > 0;
CREATE INDEX temp.gpu_device_start ON gpu(trace_id, device, s);
