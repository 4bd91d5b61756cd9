-- gpu_typed_rows: the window's GPU rows, once each and unsorted, bare: device, track, name, start, end, id. The
-- C pass of `tracedb overlap` and `kernels --by-type` (analyzer/report/type_sweep.c) finds each track's
-- rank (temp.scope_rank) and each name's kernel type (gpu_name_types.sql) itself and groups the rows.
-- Ids :lo to :hi: the pass reads two halves at once, each on its own connection.
SELECT e.device, e.thread_id, e.name_id, e.start_ns, e.start_ns + e.dur_ns, e.id
FROM scope_gpu e
WHERE e.id >= :lo AND e.id <= :hi AND e.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}, {kind:sync});
