-- memory_ops: bytes per operator, two ways.
-- Where memory was allocated and freed: each [memory] event once, in the operator it lies directly inside
-- on its own thread, so the rows add up to the trace's allocations and frees inside operators
-- (self_cpu_allocated_bytes ... self_device_freed_bytes).
-- PyTorch's memory per operator, as `ops` gives it (key_averages()' cpu_memory_usage and
-- device_memory_usage, after its merge of an only same-name child): every [memory] event of the trace,
-- of any thread, whose time lies in an operator's [start, end] (cpu_mem_bytes, device_mem_bytes), and
-- that less its CPU-side children's (self_cpu_mem_bytes, self_device_mem_bytes); from the ops pass
-- (analyzer/report/ops_sweep.c, temp.ops_agg). Names as ops gives them (ProfilerStep#N as ProfilerStep*).
WITH m AS (
  SELECT CASE WHEN n.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE n.value END AS name,
         mm.device_type <> 0 AS on_device, e.bytes
  FROM memory_event mm JOIN scope_event e ON e.id = mm.event_id JOIN event o ON o.id = e.parent_id
       JOIN string n ON n.id = o.name_id
  WHERE e.bytes IS NOT NULL
),
site AS (
  SELECT name,
         sum(CASE WHEN NOT on_device AND bytes > 0 THEN bytes ELSE 0 END) AS cpu_allocated,
         -sum(CASE WHEN NOT on_device AND bytes < 0 THEN bytes ELSE 0 END) AS cpu_freed,
         sum(CASE WHEN on_device AND bytes > 0 THEN bytes ELSE 0 END) AS device_allocated,
         -sum(CASE WHEN on_device AND bytes < 0 THEN bytes ELSE 0 END) AS device_freed
  FROM m GROUP BY name
),
torch AS (
  SELECT name, sum(cpu_mem_bytes) AS cpu_mem, sum(self_cpu_mem_bytes) AS self_cpu_mem,
         sum(device_mem_bytes) AS device_mem, sum(self_device_mem_bytes) AS self_device_mem
  FROM temp.ops_agg GROUP BY name
  HAVING sum(cpu_mem_bytes) <> 0 OR sum(self_cpu_mem_bytes) <> 0 OR sum(device_mem_bytes) <> 0
      OR sum(self_device_mem_bytes) <> 0
)
SELECT NULL AS rank, name,
       coalesce(s.cpu_allocated, 0) AS self_cpu_allocated_bytes, coalesce(s.cpu_freed, 0) AS self_cpu_freed_bytes,
       coalesce(s.device_allocated, 0) AS self_device_allocated_bytes,
       coalesce(s.device_freed, 0) AS self_device_freed_bytes,
       coalesce(t.cpu_mem, 0) AS cpu_mem_bytes, coalesce(t.self_cpu_mem, 0) AS self_cpu_mem_bytes,
       coalesce(t.device_mem, 0) AS device_mem_bytes, coalesce(t.self_device_mem, 0) AS self_device_mem_bytes
FROM site s FULL JOIN torch t USING (name)
ORDER BY coalesce(s.device_allocated, 0) + coalesce(s.cpu_allocated, 0) DESC,
         abs(coalesce(t.device_mem, 0)) + abs(coalesce(t.cpu_mem, 0)) DESC, name
LIMIT :limit;
