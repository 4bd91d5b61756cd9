-- summary_ops_events: summary_ops.sql's columns from the rows `tracedb ops`'s pass put in temp.ops_agg
-- (analyzer/report/ops_sweep.c, sorted by self CPU time), where PyTorch's merge of an operator's only
-- same-name child applies and the import's per-name sums do not serve (ops_sums_serve). Parameter: :limit.
SELECT name, calls, self_cpu_ns, cpu_total_ns, self_device_ns, device_total_ns
FROM temp.ops_agg
ORDER BY seq
LIMIT :limit;
