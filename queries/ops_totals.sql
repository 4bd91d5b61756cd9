-- ops_totals: PyTorch's footer under `tracedb ops`'s table from the import's per-name sums (event_stats):
-- "Self CPU time total", the self CPU time of every CPU-side event, and "Self CUDA time total", the
-- device rows' time: every kernel, memcpy and memset (PyTorch's device events, listed or not). From the
-- events, ops_sweep.c writes the same into temp.ops_totals.
SELECT sum(CASE WHEN kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}) THEN self_ns END) AS self_cpu_ns,
       sum(CASE WHEN kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}) THEN total_ns END) AS device_ns
FROM event_stats;
