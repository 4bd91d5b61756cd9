-- summary_ops: the top operators by self CPU time, the key columns of `tracedb ops`, from the rows its
-- pass put in temp.ops_agg (analyzer/report/ops_sweep.c, sorted by self CPU time; the CPU-side rows).
-- Parameter: :limit.
SELECT name, calls, self_cpu_ns, cpu_total_ns, self_device_ns, device_total_ns
FROM temp.ops_agg
ORDER BY seq
LIMIT :limit;
