-- ops_event_rows: what the C pass of `tracedb ops` (analyzer/report/ops_sweep.c) reads, in one pass over
-- scope_event in table order: CPU-side events (operators, ranges, runtime and driver calls) with their
-- input shapes (:by_shape) and FLOPs (:with_flops) as ops_events.sql gives them; GPU work with its launch;
-- events with a [memory] record (memory_event), their bytes on the device (1) or the host (0). Ids :lo to
-- :hi: the pass reads two halves at once, each on its own connection.
-- The kinds are tested by comparisons, not `IN (...)`: a list of more than two values is a probe into a
-- temporary b-tree on every row (two such columns were 0.28 s of a 0.93 s scan of 2 M rows); the pass
-- tells CPU-side events from GPU work by the kind itself.
SELECT e.id, e.kind, e.thread_id, e.start_ns, e.name_id, e.dur_ns, e.self_ns, e.launch_id, e.parent_id, e.bytes,
       CASE WHEN e.parent_id IS NOT NULL AND e.bytes IS NOT NULL
            THEN (SELECT coalesce(m.device_type <> 0, 0) FROM memory_event m WHERE m.event_id = e.id) END AS on_device,
       CASE WHEN :by_shape AND (e.kind = {kind:op} OR e.kind = {kind:range} OR e.kind = {kind:runtime} OR e.kind = {kind:driver})
            THEN coalesce(json_extract(e.args, '$."Input Dims"'), '') END AS input_shapes,
       CASE WHEN :with_flops AND (e.kind = {kind:op} OR e.kind = {kind:range} OR e.kind = {kind:runtime} OR e.kind = {kind:driver})
            THEN tdb_flops((SELECT s.value FROM string s WHERE s.id = e.name_id), e.args) END AS flops
FROM scope_event e
WHERE e.id >= :lo AND e.id <= :hi
  AND ((e.kind >= {kind:op} AND e.kind <= {kind:memset} AND e.kind <> {kind:gpu_range} AND e.kind <> {kind:python})
       OR (e.parent_id IS NOT NULL AND e.bytes IS NOT NULL));
