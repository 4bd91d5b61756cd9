-- ops_agg: the per-operator table of ops.sql from the events, from the rows the C pass put in
-- temp.ops_agg (analyzer/report/ops_sweep.c: windows, shapes, stacks, steps, ranks, FLOPs), in the order
-- it put them (seq) with each row's percentages' base (its step's totals with :by_step, else every row's)
-- and its place in its step, with no sort here. Parameters: :limit, :by_step.
SELECT rank, name, calls,
       self_cpu_ns, round(100.0 * self_cpu_ns / nullif(base_cpu_ns, 0), 2) AS self_cpu_pct,
       cpu_total_ns, round(100.0 * cpu_total_ns / nullif(base_cpu_ns, 0), 2) AS cpu_total_pct,
       CAST(round(1.0 * cpu_total_ns / calls) AS INTEGER) AS cpu_avg_ns,
       self_device_ns, round(100.0 * self_device_ns / nullif(base_device_ns, 0), 2) AS self_device_pct,
       device_total_ns, CAST(round(1.0 * device_total_ns / calls) AS INTEGER) AS device_avg_ns,
       cpu_mem_bytes, self_cpu_mem_bytes, device_mem_bytes, self_device_mem_bytes,
       flops, input_shapes, stack
FROM temp.ops_agg
WHERE NOT :by_step OR :limit < 0 OR n_in_step <= :limit
ORDER BY seq
LIMIT CASE WHEN :by_step THEN -1 ELSE :limit END;
