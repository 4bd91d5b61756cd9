-- ops_event_rows: what the C pass of `tracedb ops` (analyzer/report/ops_sweep.c) reads, in one pass over
-- scope_event in table order: every event in scope, with the input shapes and FLOPs of CPU-side ones (and
-- a kernel's own shapes: RAF's kernels carry them, Kineto's none)
-- (operators, ranges, runtime and driver calls) as ops.sql names them, and GPU work's launch's start (its
-- step, with --by-step). Ids :lo to :hi: the pass
-- reads two halves at once, each on its own connection, and only the columns its grouping uses (a query
-- around this one names them: SQLite computes no other, so no flag guards the shapes and FLOPs here).
-- The pass picks the rows it uses by their kind (CPU-side events, GPU work with its launch) and their
-- parent and bytes (a [memory] record, looked up in memory_event, read once before): each test here cost
-- SQLite more per row than reading the row does the pass (2 M rows: the kind's test 0.09 s, memory_event's
-- lookup 0.08 s of 0.72 s). The kinds are tested by comparisons, not `IN (...)`: a list of more than two
-- values is a probe into a temporary b-tree on every row.
SELECT e.id, e.kind, e.thread_id, e.start_ns, e.name_id, e.dur_ns, e.self_ns, e.launch_id, e.launch_ns, e.parent_id, e.bytes,
       CASE WHEN (e.kind = {kind:op} OR e.kind = {kind:range} OR e.kind = {kind:runtime} OR e.kind = {kind:driver} OR
                  e.kind = {kind:kernel})
            THEN coalesce(json_extract(e.args, '$."Input Dims"'), '') END AS input_shapes,
       CASE WHEN (e.kind = {kind:op} OR e.kind = {kind:range} OR e.kind = {kind:runtime} OR e.kind = {kind:driver})
            THEN tdb_flops((SELECT s.value FROM string s WHERE s.id = e.name_id), e.args) END AS flops
FROM scope_event e
WHERE e.id >= :lo AND e.id <= :hi;
