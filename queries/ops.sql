-- ops: the per-operator table with PyTorch key_averages() semantics, whole trace, from event_stats
-- (the sums the import keeps per name). One row per CPU-side name: operators, user ranges
-- (record_function; ProfilerStep#N grouped as ProfilerStep*), runtime and driver calls.
--   self CPU   = duration minus the direct children's durations on the same thread (event.self_ns);
--   CPU total  = whole durations;
--   device     = kernels, memcpy and memset launched by the event's own runtime calls (self) or by it
--                and everything below it (total);
--   memory     = 0: these sums serve only where there are no [memory] events (ops_sums_serve), but for a
--                shard directory, where :no_memory leaves them NULL (PyTorch's memory per operator needs
--                every event of the trace: ops_read.c; the import's memory columns hold 0).
-- With :device_rows, one row per name of GPU work (kernels, memcpy, memset) too, as key_averages() lists
-- its device events (DeviceType.CUDA, a key of their own beside a CPU-side name): calls, self and total
-- device time their durations, no CPU time, no memory.
-- Percentages are of PyTorch's footer totals: "Self CPU time total" (every row's self CPU) and "Self CUDA
-- time total" (the device rows', listed or not).
-- ops_agg.sql gives the same from the events (ops_sweep.c) when a window, shapes, stacks or FLOPs are asked for.
-- Parameters: :sort (a column), :limit, :by_rank, :device_rows (unbound: none), :no_memory (unbound: 0).
WITH agg AS (
  SELECT CASE WHEN :by_rank THEN t.rank END AS rank, 0 AS device,
         CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END AS name,
         sum(st.calls) AS calls,
         sum(st.self_ns) AS self_cpu_ns,
         sum(st.total_ns) AS cpu_total_ns,
         sum(st.self_device_ns) AS self_device_ns,
         sum(st.device_total_ns) AS device_total_ns,
         CASE WHEN NOT coalesce(:no_memory, 0) THEN 0 END AS cpu_mem_bytes,
         CASE WHEN NOT coalesce(:no_memory, 0) THEN 0 END AS self_cpu_mem_bytes,
         CASE WHEN NOT coalesce(:no_memory, 0) THEN 0 END AS device_mem_bytes,
         CASE WHEN NOT coalesce(:no_memory, 0) THEN 0 END AS self_device_mem_bytes
  FROM event_stats st JOIN string s ON s.id = st.name_id JOIN trace t ON t.id = st.trace_id
  WHERE st.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver})
  GROUP BY 1, 3
  UNION ALL
  SELECT CASE WHEN :by_rank THEN t.rank END, 1,
         CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END,
         sum(st.calls), 0, 0, sum(st.total_ns), sum(st.total_ns), 0, 0, 0, 0
  FROM event_stats st JOIN string s ON s.id = st.name_id JOIN trace t ON t.id = st.trace_id
  WHERE st.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset})
  GROUP BY 1, 3
),
tot AS (SELECT sum(self_cpu_ns) AS cpu, sum(CASE WHEN device THEN self_device_ns END) AS dev FROM agg)
SELECT rank, name, calls,
       self_cpu_ns, round(100.0 * self_cpu_ns / nullif(tot.cpu, 0), 2) AS self_cpu_pct,
       cpu_total_ns, round(100.0 * cpu_total_ns / nullif(tot.cpu, 0), 2) AS cpu_total_pct,
       CAST(round(1.0 * cpu_total_ns / calls) AS INTEGER) AS cpu_avg_ns,
       self_device_ns, round(100.0 * self_device_ns / nullif(tot.dev, 0), 2) AS self_device_pct,
       device_total_ns, CAST(round(1.0 * device_total_ns / calls) AS INTEGER) AS device_avg_ns,
       cpu_mem_bytes, self_cpu_mem_bytes, device_mem_bytes, self_device_mem_bytes,
       NULL AS flops, NULL AS input_shapes, NULL AS stack
FROM agg, tot
WHERE NOT device OR coalesce(:device_rows, 0)
ORDER BY {sql:ops_sort_key} DESC,
         rank, name, device
LIMIT :limit;
