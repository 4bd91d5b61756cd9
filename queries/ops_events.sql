-- ops_events: the per-operator table of ops.sql computed from the events in scope_event (a time
-- window or a range), optionally per input shape ("Input Dims"), per Python stack (the innermost
-- :stack_depth python_function frames above the operator) and with FLOPs (tdb_flops, PyTorch's
-- formulas). Device time and memory go to the operator whose runtime call launched the work, or that
-- holds the [memory] event (self), and to all its ancestors (total).
-- Parameters: :sort, :limit, :by_rank, :by_step, :group_by (name | shape | stack), :stack_depth, :with_flops.
-- `tracedb ops` runs it for stacks; the rest is the C pass's (analyzer/report/ops_sweep.c, ops_agg.sql),
-- which gives the same tables.
-- With :by_step the first column holds the step (temp.scope_steps) each event starts in, the
-- percentages are of the step's total, and :limit keeps the first rows of each step.
WITH RECURSIVE
cpu AS (
  SELECT e.id, e.thread_id, e.start_ns, e.dur_ns, e.self_ns, e.args, e.parent_id, s.value AS raw_name,
         CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END AS name
  FROM scope_event e JOIN string s ON s.id = e.name_id
  WHERE e.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver})
),
gpu AS (
  SELECT a.parent_id AS op_id, g.dur_ns AS v
  FROM scope_event g JOIN event a ON a.id = g.launch_id
  WHERE g.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}) AND a.parent_id IS NOT NULL
),
-- The walks up go from an event to its parent (q) only while the depth falls, as it does by one at
-- every step in a database tracedb made: a loop of parents (a foreign database) ends where it closes,
-- each of its events counted once, as the C pass counts them (the walk went round it until 65,536
-- hops, adding again each time: minutes on a few thousand events); hops bounds it too.
gpu_up(anc, v, hops) AS (
  SELECT op_id, v, 0 FROM gpu
  UNION ALL
  SELECT q.id, gpu_up.v, gpu_up.hops + 1 FROM gpu_up JOIN event p ON p.id = gpu_up.anc JOIN event q ON q.id = p.parent_id
  WHERE q.depth < p.depth AND gpu_up.hops < 65536
),
mem AS (
  SELECT e.parent_id AS op_id, m.device_type <> 0 AS on_device, e.bytes AS v
  FROM memory_event m JOIN scope_event e ON e.id = m.event_id
  WHERE e.parent_id IS NOT NULL AND e.bytes IS NOT NULL
),
mem_up(anc, on_device, v, hops) AS (
  SELECT op_id, on_device, v, 0 FROM mem
  UNION ALL
  SELECT q.id, mem_up.on_device, mem_up.v, mem_up.hops + 1 FROM mem_up JOIN event p ON p.id = mem_up.anc
  JOIN event q ON q.id = p.parent_id
  WHERE q.depth < p.depth AND mem_up.hops < 65536
),
dev_self AS (SELECT op_id AS id, sum(v) AS v FROM gpu GROUP BY op_id),
dev_total AS (SELECT anc AS id, sum(v) AS v FROM gpu_up GROUP BY anc),
mem_self AS (SELECT op_id AS id, sum(CASE WHEN on_device THEN 0 ELSE v END) AS cpu,
                    sum(CASE WHEN on_device THEN v ELSE 0 END) AS dev FROM mem GROUP BY op_id),
mem_total AS (SELECT anc AS id, sum(CASE WHEN on_device THEN 0 ELSE v END) AS cpu,
                     sum(CASE WHEN on_device THEN v ELSE 0 END) AS dev FROM mem_up GROUP BY anc),
py(id, anc, n, stack, hops) AS (
  SELECT id, parent_id, 0, '', 0 FROM cpu WHERE :group_by = 'stack'
  UNION ALL
  SELECT py.id, CASE WHEN q.depth < p.depth THEN q.id END, py.n + (p.kind = {kind:python}), -- NULL: the top
         CASE WHEN p.kind = {kind:python} AND py.n < :stack_depth
              THEN py.stack || CASE WHEN py.stack = '' THEN '' ELSE '; ' END || s.value ELSE py.stack END, py.hops + 1
  FROM py JOIN event p ON p.id = py.anc JOIN string s ON s.id = p.name_id LEFT JOIN event q ON q.id = p.parent_id
  WHERE py.hops < 65536
),
stacks AS (SELECT id, stack FROM py WHERE anc IS NULL),
per_event AS (
  SELECT CASE WHEN :by_rank THEN (SELECT t.rank FROM thread th JOIN process pr ON pr.id = th.process_id
                                  JOIN trace t ON t.id = pr.trace_id WHERE th.id = c.thread_id)
              WHEN :by_step THEN (SELECT {sql:step_of} FROM (SELECT c.start_ns AS step_t)) END AS rank,
         c.name,
         CASE WHEN :group_by = 'shape' THEN coalesce(json_extract(c.args, '$."Input Dims"'), '') END AS input_shapes,
         CASE WHEN :group_by = 'stack' THEN st.stack END AS stack,
         c.dur_ns, c.self_ns,
         coalesce(ds.v, 0) AS self_dev, coalesce(dt.v, 0) AS dev_total,
         coalesce(ms.cpu, 0) AS self_cpu_mem, coalesce(mt.cpu, 0) AS cpu_mem,
         coalesce(ms.dev, 0) AS self_dev_mem, coalesce(mt.dev, 0) AS dev_mem,
         CASE WHEN :with_flops THEN tdb_flops(c.raw_name, c.args) END AS flops
  FROM cpu c
  LEFT JOIN dev_self ds ON ds.id = c.id
  LEFT JOIN dev_total dt ON dt.id = c.id
  LEFT JOIN mem_self ms ON ms.id = c.id
  LEFT JOIN mem_total mt ON mt.id = c.id
  LEFT JOIN stacks st ON st.id = c.id
),
agg AS (
  SELECT rank, name, input_shapes, stack, count(*) AS calls,
         sum(self_ns) AS self_cpu_ns, sum(dur_ns) AS cpu_total_ns,
         sum(self_dev) AS self_device_ns, sum(dev_total) AS device_total_ns,
         sum(cpu_mem) AS cpu_mem_bytes, sum(self_cpu_mem) AS self_cpu_mem_bytes,
         sum(dev_mem) AS device_mem_bytes, sum(self_dev_mem) AS self_device_mem_bytes,
         sum(flops) AS flops
  FROM per_event
  GROUP BY rank, name, input_shapes, stack
),
{sql:ops_tail}
