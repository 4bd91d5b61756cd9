-- diff_ops_rows: one run's rows of `tracedb diff`'s ops section, from `tracedb ops`'s own pass over that
-- run's database (temp.ops_agg, analyzer/report/ops_sweep.c, run by analyzer/report/diff_gate.c with the
-- device rows, each marked so, per shape with --by-shape): calls and self CPU time of each CPU-side row
-- (after PyTorch's merge of an only same-name child; every ProfilerStep#N as ProfilerStep*), calls and
-- device time of each device row (kernels, memcpy, memset per name; with --by-shape their shapes summed
-- away, so that GPU work is still matched by name). No rule of ops' is computed here; this only names
-- each row's kind: its name's events' kind, from event_stats' (kind, name) rows (not its sums); a name
-- under more than one CPU-side kind is listed under the first of op, range, runtime, driver (the sums of
-- all of them in its one row, as `ops` has it), GPU work under the first of kernel, memcpy, memset.
WITH
kinds AS (
  SELECT CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END AS name,
         min(CASE st.kind WHEN {kind:op} THEN 1 WHEN {kind:range} THEN 2 WHEN {kind:runtime} THEN 3
                          WHEN {kind:driver} THEN 4 END) AS cpu,
         min(CASE st.kind WHEN {kind:kernel} THEN 1 WHEN {kind:memcpy} THEN 2 WHEN {kind:memset} THEN 3 END) AS gpu
  FROM main.event_stats st JOIN main.string s ON s.id = st.name_id
  WHERE st.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}, {kind:kernel}, {kind:memcpy}, {kind:memset})
  GROUP BY 1
)
SELECT CASE WHEN a.device THEN CASE k.gpu WHEN 2 THEN 'memcpy' WHEN 3 THEN 'memset' ELSE 'kernel' END
            ELSE CASE k.cpu WHEN 2 THEN 'range' WHEN 3 THEN 'runtime' WHEN 4 THEN 'driver' ELSE 'op' END END AS kind,
       a.name, CASE WHEN NOT a.device THEN a.input_shapes END AS shapes, sum(a.calls) AS calls,
       sum(CASE WHEN a.device THEN a.self_device_ns ELSE a.self_cpu_ns END) AS total
FROM temp.ops_agg a LEFT JOIN kinds k ON k.name = a.name
GROUP BY 1, 2, 3;
