-- diff_ops_rows: one run's rows of `tracedb diff`'s ops section, from `tracedb ops`'s own pass over that
-- run's database (temp.ops_agg, analyzer/report/ops_sweep.c, run by analyzer/report/diff_gate.c ordered
-- by name, with the device rows, per shape with --by-shape): calls and self CPU time of each CPU-side row
-- (after PyTorch's merge of an only same-name child; every ProfilerStep#N as ProfilerStep*), calls and
-- device time of each device row (kernels, memcpy, memset per name; with --by-shape their shapes summed
-- away, so that GPU work is still matched by name). No rule of ops' is computed here; this only says
-- which side each row is and names its kind:
--   - side: ops' rows of one name (and shapes) are a CPU-side row and a device row, the CPU-side one
--     first in the order by name (ops_write.c); a lone row is the side its name has events of, and where
--     that is not one side (events of both, or none in event_stats), the device row is the one without
--     CPU time;
--   - kind: a name's events' kind, from event_stats' (kind, name) rows (not its sums); a name under more
--     than one CPU-side kind is listed under the first of op, range, runtime, driver (the sums of all
--     of them in its one row, as `ops` has it), GPU work under the first of kernel, memcpy, memset.
WITH
kinds AS (
  SELECT CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END AS name,
         min(CASE st.kind WHEN {kind:op} THEN 1 WHEN {kind:range} THEN 2 WHEN {kind:runtime} THEN 3
                          WHEN {kind:driver} THEN 4 END) AS cpu,
         min(CASE st.kind WHEN {kind:kernel} THEN 1 WHEN {kind:memcpy} THEN 2 WHEN {kind:memset} THEN 3 END) AS gpu
  FROM main.event_stats st JOIN main.string s ON s.id = st.name_id
  WHERE st.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}, {kind:kernel}, {kind:memcpy}, {kind:memset})
  GROUP BY 1
),
paired AS (
  SELECT a.name, a.input_shapes, a.calls, a.self_cpu_ns, a.cpu_total_ns, a.self_device_ns,
         row_number() OVER w AS nth, count(*) OVER w AS n
  FROM temp.ops_agg a
  WINDOW w AS (PARTITION BY a.name, a.input_shapes ORDER BY a.seq)
),
sided AS (
  SELECT p.*, k.cpu, k.gpu,
         CASE WHEN p.n > 1 THEN p.nth > 1
              WHEN k.cpu IS NOT NULL AND k.gpu IS NULL THEN 0
              WHEN k.gpu IS NOT NULL AND k.cpu IS NULL THEN 1
              ELSE p.cpu_total_ns = 0 END AS device
  FROM paired p LEFT JOIN kinds k ON k.name = p.name
)
SELECT CASE WHEN device THEN CASE gpu WHEN 2 THEN 'memcpy' WHEN 3 THEN 'memset' ELSE 'kernel' END
            ELSE CASE cpu WHEN 2 THEN 'range' WHEN 3 THEN 'runtime' WHEN 4 THEN 'driver' ELSE 'op' END END AS kind,
       name, CASE WHEN NOT device THEN input_shapes END AS shapes, sum(calls) AS calls,
       sum(CASE WHEN device THEN self_device_ns ELSE self_cpu_ns END) AS total
FROM sided
GROUP BY 1, 2, 3;
