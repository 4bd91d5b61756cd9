-- idle_work: the GPU work of `tracedb idle`, once each and unsorted, with the start of its launch call:
-- the C pass (analyzer/report/idle_sweep.c) finds each track's rank and sorts each rank's, device's and
-- stream's work itself. Ids :lo to :hi: the pass reads two halves at once, each on its own connection.
WITH {sql:idle_kernels}
SELECT thread_id, device, stream, s, en, launch_ns, id FROM idle_k WHERE id >= :lo AND id <= :hi;
