-- kernels_pattern_steps: every ProfilerStep#N range of the trace (found by the range index, whatever the
-- window), for `tracedb kernels --patterns` (analyzer/report/pattern_sweep.c): the tracks holding one are
-- HTA's main threads, and the steps are where the backward thread's calls hang when no "## backward ##"
-- annotation is there. id: said when a refused value is met.
SELECT thread_id, start_ns, dur_ns, depth, id FROM event
WHERE kind = {kind:range} AND name_id IN (SELECT id FROM string WHERE value GLOB 'ProfilerStep#*');
