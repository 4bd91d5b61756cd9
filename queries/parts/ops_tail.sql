-- ops_tail: the percentages, order and limits of ops_events.sql (the stack grouping); the C pass's rows
-- (ops_agg.sql) come in this order with these bases from analyzer/report/ops_sweep.c (write_ordered),
-- and tests/unit/test_reports.c holds both to one hand-worked order. A step's totals (the percentages'
-- base with :by_step) and its start (the steps' order) come from one GROUP BY, not a window sum or a
-- subquery on every row (30,316 rows on 2 M events: 10 ms less); the rows are numbered in their step (a
-- window: a sort of every row) only for a limit in each step.
tot AS (SELECT sum(self_cpu_ns) AS cpu, sum(self_device_ns) AS dev FROM agg),
step_tot AS MATERIALIZED (
  SELECT rank AS step, sum(self_cpu_ns) AS cpu, sum(self_device_ns) AS dev,
         (SELECT min(start_ns) FROM scope_steps WHERE name = agg.rank) AS step_start
  FROM agg WHERE :by_step GROUP BY rank
),
rows AS NOT MATERIALIZED ( -- (one arm of numbered reads it: not copied first)
  SELECT rank, name, calls,
         self_cpu_ns, round(100.0 * self_cpu_ns / nullif(CASE WHEN :by_step THEN st.cpu ELSE tot.cpu END, 0), 2) AS self_cpu_pct,
         cpu_total_ns, round(100.0 * cpu_total_ns / nullif(CASE WHEN :by_step THEN st.cpu ELSE tot.cpu END, 0), 2) AS cpu_total_pct,
         CAST(round(1.0 * cpu_total_ns / calls) AS INTEGER) AS cpu_avg_ns,
         self_device_ns, round(100.0 * self_device_ns / nullif(CASE WHEN :by_step THEN st.dev ELSE tot.dev END, 0), 2) AS self_device_pct,
         device_total_ns, CAST(round(1.0 * device_total_ns / calls) AS INTEGER) AS device_avg_ns,
         cpu_mem_bytes, self_cpu_mem_bytes, device_mem_bytes, self_device_mem_bytes,
         flops, input_shapes, stack, st.step_start,
         {sql:ops_sort_key} AS sort_key
  FROM agg CROSS JOIN tot LEFT JOIN step_tot st ON st.step IS agg.rank
),
numbered AS ( -- a row's place in its step, for a limit in each step: a window, so only then
  SELECT *, row_number() OVER (PARTITION BY rank ORDER BY sort_key DESC, name, input_shapes, stack) AS n_in_step
  FROM rows WHERE :by_step AND :limit >= 0
  UNION ALL
  SELECT *, NULL FROM rows WHERE NOT (:by_step AND :limit >= 0)
)
SELECT rank, name, calls, self_cpu_ns, self_cpu_pct, cpu_total_ns, cpu_total_pct, cpu_avg_ns,
       self_device_ns, self_device_pct, device_total_ns, device_avg_ns,
       cpu_mem_bytes, self_cpu_mem_bytes, device_mem_bytes, self_device_mem_bytes,
       flops, input_shapes, stack
FROM numbered
WHERE NOT :by_step OR :limit < 0 OR n_in_step <= :limit
ORDER BY CASE WHEN :by_step THEN step_start END,
         sort_key DESC, rank, name, input_shapes, stack
LIMIT CASE WHEN :by_step THEN -1 ELSE :limit END
