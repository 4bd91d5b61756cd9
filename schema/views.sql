-- tracedb views: plain names over the event table, so ad-hoc SQL reads like English.
-- Every view has id, name, start_ns, end_ns, dur_ns, parent_id, depth, then its kind's own columns.
-- A view's comment describes it, and in lines "--   column: meaning" the columns it makes; a column
-- a view takes from a table means what the table's comment says: the event table's column of that
-- name, else the first table's (tools/schemapage.sh reads them so).
-- Columns that several views make:
--   name: the event's name (string.value)
--   end_ns: start_ns + dur_ns, ns
--   op_id: the operator that launched the GPU work: the nearest event of kind op above its launch call
--     (launch_id); NULL when there is none (a recording's NVTX ranges are ranges, not operators)
--   step: N of ProfilerStep#N

-- Every event, whatever its kind.
--   kind: the kind's name (kind.name): op, kernel, ...
--   cat: the category as the trace wrote it
CREATE VIEW events AS
SELECT e.id, s.value AS name, k.name AS kind, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns,
       e.parent_id, e.depth, e.self_ns, c.value AS cat, e.thread_id, p.pid, t.tid, p.trace_id,
       e.correlation, e.external_id, e.device, e.stream, e.bytes, e.launch_id, e.args
FROM event e
JOIN string s ON s.id = e.name_id
JOIN kind k ON k.id = e.kind
LEFT JOIN string c ON c.id = e.cat_id
JOIN thread t ON t.id = e.thread_id
JOIN process p ON p.id = t.process_id;

-- Operators (Kineto cpu_op, and the operators of older traces and of recordings); args holds their
-- Input Dims and the like as JSON.
CREATE VIEW ops AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.self_ns, e.thread_id, e.external_id, e.args
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind = {kind:op};

-- User annotations (record_function, NVTX ranges), on the CPU and projected on the GPU.
--   on_device: 1 for a range's projection on a GPU (kind gpu_range), else 0
CREATE VIEW ranges AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.self_ns, e.thread_id, e.device, e.stream, e.external_id, (e.kind = {kind:gpu_range}) AS on_device, e.args
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind IN ({kind:range}, {kind:gpu_range});

-- The steps: ranges named ProfilerStep#N.
CREATE VIEW steps AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.self_ns, CAST(substr(s.value, 14) AS INTEGER) AS step, e.thread_id
FROM event e JOIN string s ON s.id = e.name_id
WHERE {sql:profiler_step};

-- CUDA runtime and driver API calls.
--   api: runtime or driver
CREATE VIEW api_calls AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.self_ns, CASE e.kind WHEN {kind:runtime} THEN 'runtime' ELSE 'driver' END AS api, e.thread_id, e.correlation,
       e.external_id, e.args
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind IN ({kind:runtime}, {kind:driver});

-- GPU kernels, with their launch geometry (kernel_launch).
CREATE VIEW kernels AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.device, e.stream, e.correlation, e.external_id, e.launch_id,
       (WITH RECURSIVE up(id, kind, parent_id) AS (
          SELECT a.id, a.kind, a.parent_id FROM event a WHERE a.id = e.launch_id
          UNION ALL SELECT p.id, p.kind, p.parent_id FROM event p JOIN up ON p.id = up.parent_id WHERE up.kind != {kind:op})
        SELECT id FROM up WHERE kind = {kind:op} LIMIT 1) AS op_id,
       l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z, l.registers, l.shared_mem,
       l.blocks_per_sm, l.warps_per_sm, l.occupancy_pct, e.thread_id, e.args
FROM event e JOIN string s ON s.id = e.name_id
LEFT JOIN kernel_launch l ON l.event_id = e.id
WHERE e.kind = {kind:kernel};

-- GPU memory copies.
CREATE VIEW memcpy AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.device, e.stream, e.bytes, e.correlation, e.external_id, e.launch_id,
       (WITH RECURSIVE up(id, kind, parent_id) AS (
          SELECT a.id, a.kind, a.parent_id FROM event a WHERE a.id = e.launch_id
          UNION ALL SELECT p.id, p.kind, p.parent_id FROM event p JOIN up ON p.id = up.parent_id WHERE up.kind != {kind:op})
        SELECT id FROM up WHERE kind = {kind:op} LIMIT 1) AS op_id, e.thread_id, e.args
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind = {kind:memcpy};

-- GPU memory sets.
CREATE VIEW memset AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.device, e.stream, e.bytes, e.correlation, e.external_id, e.launch_id,
       (WITH RECURSIVE up(id, kind, parent_id) AS (
          SELECT a.id, a.kind, a.parent_id FROM event a WHERE a.id = e.launch_id
          UNION ALL SELECT p.id, p.kind, p.parent_id FROM event p JOIN up ON p.id = up.parent_id WHERE up.kind != {kind:op})
        SELECT id FROM up WHERE kind = {kind:op} LIMIT 1) AS op_id, e.thread_id, e.args
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind = {kind:memset};

-- CUDA synchronizations (Kineto's cuda_sync events).
CREATE VIEW syncs AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.device, e.stream, e.correlation, e.thread_id, e.args
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind = {kind:sync};

-- [memory] events: an allocation (bytes > 0) or a free (bytes < 0), with the allocator's totals after it.
--   end_ns: start_ns (an instant)
--   dur_ns: 0 (an instant)
CREATE VIEW memory_events AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns AS end_ns, 0 AS dur_ns, e.parent_id, e.depth,
       e.device, m.device_type, m.addr, e.bytes, m.total_allocated, m.total_reserved, e.thread_id
FROM event e JOIN string s ON s.id = e.name_id
LEFT JOIN memory_event m ON m.event_id = e.id
WHERE e.kind = {kind:memory};

-- Per rank and step number, the step's duration (one row per rank that ran the step).
--   id: the step's event.id
CREATE VIEW step_ranks AS
SELECT t.rank, CAST(substr(s.value, 14) AS INTEGER) AS step, e.id, e.start_ns, e.dur_ns, t.id AS trace_id
FROM event e JOIN string s ON s.id = e.name_id
JOIN thread th ON th.id = e.thread_id JOIN process p ON p.id = th.process_id JOIN trace t ON t.id = p.trace_id
WHERE {sql:profiler_step};
