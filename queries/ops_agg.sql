-- ops_agg: the per-operator table of ops_events.sql from the sums the C pass put in temp.ops_agg
-- (analyzer/report/ops_sweep.c: windows, shapes, steps, ranks, FLOPs); the same percentages, order and
-- limits (queries/parts/ops_tail.sql). Parameters: :sort, :limit, :by_step.
WITH agg AS (
  SELECT rank, name, input_shapes, stack, calls, self_cpu_ns, cpu_total_ns, self_device_ns, device_total_ns,
         cpu_mem_bytes, self_cpu_mem_bytes, device_mem_bytes, self_device_mem_bytes, flops
  FROM temp.ops_agg
),
{sql:ops_tail};
