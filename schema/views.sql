-- tracedb views: plain names over the event table, so ad-hoc SQL reads like English.
-- Every view has id, name, start_ns, end_ns, dur_ns, parent_id, depth, then its kind's own columns.

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

CREATE VIEW ops AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.self_ns, e.thread_id, e.external_id, e.args
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind = {kind:op};

CREATE VIEW ranges AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.self_ns, e.thread_id, e.device, e.stream, e.external_id, (e.kind = {kind:gpu_range}) AS on_device, e.args
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind IN ({kind:range}, {kind:gpu_range});

CREATE VIEW steps AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.self_ns, CAST(substr(s.value, 14) AS INTEGER) AS step, e.thread_id
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind = {kind:range} AND s.value GLOB 'ProfilerStep#[0-9]*';

CREATE VIEW api_calls AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.self_ns, CASE e.kind WHEN {kind:runtime} THEN 'runtime' ELSE 'driver' END AS api, e.thread_id, e.correlation,
       e.external_id, e.args
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind IN ({kind:runtime}, {kind:driver});

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

CREATE VIEW memcpy AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.device, e.stream, e.bytes, e.correlation, e.external_id, e.launch_id,
       (WITH RECURSIVE up(id, kind, parent_id) AS (
          SELECT a.id, a.kind, a.parent_id FROM event a WHERE a.id = e.launch_id
          UNION ALL SELECT p.id, p.kind, p.parent_id FROM event p JOIN up ON p.id = up.parent_id WHERE up.kind != {kind:op})
        SELECT id FROM up WHERE kind = {kind:op} LIMIT 1) AS op_id, e.thread_id, e.args
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind = {kind:memcpy};

CREATE VIEW memset AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.device, e.stream, e.bytes, e.correlation, e.external_id, e.launch_id,
       (WITH RECURSIVE up(id, kind, parent_id) AS (
          SELECT a.id, a.kind, a.parent_id FROM event a WHERE a.id = e.launch_id
          UNION ALL SELECT p.id, p.kind, p.parent_id FROM event p JOIN up ON p.id = up.parent_id WHERE up.kind != {kind:op})
        SELECT id FROM up WHERE kind = {kind:op} LIMIT 1) AS op_id, e.thread_id, e.args
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind = {kind:memset};

CREATE VIEW syncs AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns, e.parent_id, e.depth,
       e.device, e.stream, e.correlation, e.thread_id, e.args
FROM event e JOIN string s ON s.id = e.name_id
WHERE e.kind = {kind:sync};

CREATE VIEW memory_events AS
SELECT e.id, s.value AS name, e.start_ns, e.start_ns AS end_ns, 0 AS dur_ns, e.parent_id, e.depth,
       e.device, m.device_type, m.addr, e.bytes, m.total_allocated, m.total_reserved, e.thread_id
FROM event e JOIN string s ON s.id = e.name_id
LEFT JOIN memory_event m ON m.event_id = e.id
WHERE e.kind = {kind:memory};

-- Per rank and step number, the step's duration (one row per rank that ran the step).
CREATE VIEW step_ranks AS
SELECT t.rank, CAST(substr(s.value, 14) AS INTEGER) AS step, e.id, e.start_ns, e.dur_ns, t.id AS trace_id
FROM event e JOIN string s ON s.id = e.name_id
JOIN thread th ON th.id = e.thread_id JOIN process p ON p.id = th.process_id JOIN trace t ON t.id = p.trace_id
WHERE e.kind = {kind:range} AND s.value GLOB 'ProfilerStep#[0-9]*';
