-- diff: operators and GPU work of two runs side by side, matched by name (main = base, new = new):
-- calls, total and average time in each, the change in ns and %, and a status (added, removed,
-- increased, decreased, unchanged within :tolerance %). CPU-side events (operators, ranges, runtime
-- and driver calls, each under its own kind) compare self CPU time, so nested ones are not counted twice; kernels, memcpy
-- and memset compare device time. From each database's event_stats; with :by_shape, operators are
-- matched by name and input shapes ("Input Dims"), summed from the events. Calls are PyTorch's, as `ops`
-- counts them: an event that is its parent's only CPU-side child and has its name is no call of its own
-- (EventList._remove_dup_nodes; analyzer/report/ops_merge.c), its self time its chain's top's. Sorted by
-- absolute impact.
WITH
-- main's events PyTorch's merge removes (where its import counted events inside one of their own name):
-- an event whose parent has its name and no other CPU-side child; its self time goes to its chain's top
b_cand AS MATERIALIZED (
  SELECT c.id, c.parent_id AS pid FROM main.event c JOIN main.event p ON p.id = c.parent_id
  WHERE NOT coalesce((SELECT typeof(value) = 'integer' AND value = 0 FROM main.meta WHERE key = 'ops.same_name_nesting'), 0)
    AND c.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}) AND p.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}) AND p.name_id = c.name_id AND p.id <> c.id
),
b_kids AS MATERIALIZED (
  SELECT parent_id, count(*) AS n FROM main.event
  WHERE kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}) AND parent_id IN (SELECT pid FROM b_cand) GROUP BY parent_id
),
b_only AS MATERIALIZED (SELECT c.id, c.pid FROM b_cand c JOIN b_kids k ON k.parent_id = c.pid WHERE k.n = 1),
-- each merged event and its chain's top, walked down from the tops (each event once; a loop has no top)
b_down(id, top) AS (
  SELECT o.id, o.pid FROM b_only o WHERE o.pid NOT IN (SELECT id FROM b_only)
  UNION ALL
  SELECT o.id, d.top FROM b_down d JOIN b_only o ON o.pid = d.id
),
b_moved AS (
  SELECT e.kind, e.name_id, e.args, -1 AS calls, -e.self_ns AS self_ns FROM b_down d JOIN main.event e ON e.id = d.id
  UNION ALL
  SELECT t.kind, t.name_id, t.args, 0, e.self_ns FROM b_down d JOIN main.event e ON e.id = d.id JOIN main.event t ON t.id = d.top
),
b_rows AS (
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
  UNION ALL
  SELECT k.name, CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END,
         CASE WHEN :by_shape THEN coalesce(json_extract(m.args, '$."Input Dims"'), '') END, m.calls, m.self_ns
  FROM b_moved m JOIN main.string s ON s.id = m.name_id JOIN main.kind k ON k.id = m.kind
),
b AS (SELECT kind, name, shapes, sum(calls) AS calls, sum(total) AS total FROM b_rows GROUP BY kind, name, shapes
      HAVING sum(calls) > 0),
-- new's events PyTorch's merge removes (where its import counted events inside one of their own name):
-- an event whose parent has its name and no other CPU-side child; its self time goes to its chain's top
n_cand AS MATERIALIZED (
  SELECT c.id, c.parent_id AS pid FROM new.event c JOIN new.event p ON p.id = c.parent_id
  WHERE NOT coalesce((SELECT typeof(value) = 'integer' AND value = 0 FROM new.meta WHERE key = 'ops.same_name_nesting'), 0)
    AND c.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}) AND p.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}) AND p.name_id = c.name_id AND p.id <> c.id
),
n_kids AS MATERIALIZED (
  SELECT parent_id, count(*) AS n FROM new.event
  WHERE kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver}) AND parent_id IN (SELECT pid FROM n_cand) GROUP BY parent_id
),
n_only AS MATERIALIZED (SELECT c.id, c.pid FROM n_cand c JOIN n_kids k ON k.parent_id = c.pid WHERE k.n = 1),
-- each merged event and its chain's top, walked down from the tops (each event once; a loop has no top)
n_down(id, top) AS (
  SELECT o.id, o.pid FROM n_only o WHERE o.pid NOT IN (SELECT id FROM n_only)
  UNION ALL
  SELECT o.id, d.top FROM n_down d JOIN n_only o ON o.pid = d.id
),
n_moved AS (
  SELECT e.kind, e.name_id, e.args, -1 AS calls, -e.self_ns AS self_ns FROM n_down d JOIN new.event e ON e.id = d.id
  UNION ALL
  SELECT t.kind, t.name_id, t.args, 0, e.self_ns FROM n_down d JOIN new.event e ON e.id = d.id JOIN new.event t ON t.id = d.top
),
n_rows AS (
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
  UNION ALL
  SELECT k.name, CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END,
         CASE WHEN :by_shape THEN coalesce(json_extract(m.args, '$."Input Dims"'), '') END, m.calls, m.self_ns
  FROM n_moved m JOIN new.string s ON s.id = m.name_id JOIN new.kind k ON k.id = m.kind
),
n AS (SELECT kind, name, shapes, sum(calls) AS calls, sum(total) AS total FROM n_rows GROUP BY kind, name, shapes
      HAVING sum(calls) > 0),
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
