-- diff: operators and GPU work of two runs side by side, matched by name (main = base, new = new):
-- calls, total and average time in each, the change in ns and %, and a status (added, removed,
-- increased, decreased, unchanged within :tolerance %). CPU-side events (operators, ranges, runtime
-- and driver calls, each under its own kind) compare self CPU time, so nested ones are not counted twice; kernels, memcpy
-- and memset compare device time. From each database's event_stats; with :by_shape, operators are
-- matched by name and input shapes ("Input Dims"), summed from the events. Sorted by absolute impact.
WITH b AS (
  SELECT k.name AS kind,
         CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END AS name, NULL AS shapes,
         sum(st.calls) AS calls, sum(CASE WHEN st.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}) THEN st.self_ns ELSE st.total_ns END) AS total
  FROM main.event_stats st JOIN main.string s ON s.id = st.name_id JOIN main.kind k ON k.id = st.kind
  WHERE st.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}) OR (st.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}) AND NOT :by_shape) GROUP BY 1, 2
  UNION ALL
  SELECT k.name, CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END,
         coalesce(json_extract(e.args, '$."Input Dims"'), ''), count(*), sum(e.self_ns)
  FROM main.event e JOIN main.string s ON s.id = e.name_id JOIN main.kind k ON k.id = e.kind
  WHERE :by_shape AND e.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}) GROUP BY 1, 2, 3
),
n AS (
  SELECT k.name AS kind,
         CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END AS name, NULL AS shapes,
         sum(st.calls) AS calls, sum(CASE WHEN st.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}) THEN st.self_ns ELSE st.total_ns END) AS total
  FROM new.event_stats st JOIN new.string s ON s.id = st.name_id JOIN new.kind k ON k.id = st.kind
  WHERE st.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}) OR (st.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}) AND NOT :by_shape) GROUP BY 1, 2
  UNION ALL
  SELECT k.name, CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END,
         coalesce(json_extract(e.args, '$."Input Dims"'), ''), count(*), sum(e.self_ns)
  FROM new.event e JOIN new.string s ON s.id = e.name_id JOIN new.kind k ON k.id = e.kind
  WHERE :by_shape AND e.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}) GROUP BY 1, 2, 3
),
j AS (
  SELECT b.kind, b.name, b.shapes, b.calls AS bc, b.total AS bt, n.calls AS nc, n.total AS nt
  FROM b LEFT JOIN n ON n.kind = b.kind AND n.name = b.name AND n.shapes IS b.shapes
  UNION ALL
  SELECT n.kind, n.name, n.shapes, NULL, NULL, n.calls, n.total
  FROM n WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.kind = n.kind AND b.name = n.name AND b.shapes IS n.shapes)
)
SELECT NULL AS rank, name, kind,
       coalesce(bc, 0) AS base_calls, coalesce(nc, 0) AS new_calls,
       coalesce(bt, 0) AS base_total_ns, coalesce(nt, 0) AS new_total_ns,
       CAST(round(1.0 * bt / bc) AS INTEGER) AS base_avg_ns, CAST(round(1.0 * nt / nc) AS INTEGER) AS new_avg_ns,
       coalesce(nt, 0) - coalesce(bt, 0) AS delta_ns,
       round(100.0 * (coalesce(nt, 0) - bt) / nullif(bt, 0), 2) AS delta_pct,
       CASE WHEN bc IS NULL THEN 'added' WHEN nc IS NULL THEN 'removed'
            WHEN abs(coalesce(nt, 0) - bt) <= :tolerance / 100.0 * bt THEN 'unchanged'
            WHEN nt > bt THEN 'increased' ELSE 'decreased' END AS status,
       shapes AS input_shapes
FROM j
WHERE :kinds = '' OR instr(',' || :kinds || ',', ',' || kind || ',') > 0
ORDER BY abs(coalesce(nt, 0) - coalesce(bt, 0)) DESC, name
LIMIT :limit;
