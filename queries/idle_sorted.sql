-- idle_sorted: the GPU work of each rank, device and stream in start order (then id), with the start of
-- its launch call, for the C pass of `tracedb idle` (analyzer/report/idle_sweep.c: HTA's rule, idle.sql).
WITH {sql:idle_kernels}
SELECT rank, device, stream, s, en, launch_ns FROM idle_k ORDER BY rank, device, stream, s, id;
