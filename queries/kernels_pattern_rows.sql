-- kernels_pattern_rows: the window's rows `tracedb kernels --patterns` reads in one pass
-- (analyzer/report/pattern_sweep.c sorts out the host calls, the launches and the GPU work), ids :lo to :hi:
-- the pass reads two halves at once, each on its own connection.
SELECT id, kind, name_id, thread_id, start_ns, dur_ns, depth, parent_id, launch_id, stream
FROM scope_event WHERE id >= :lo AND id <= :hi;
