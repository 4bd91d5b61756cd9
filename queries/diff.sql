-- diff: operators and GPU work of two runs side by side, matched by kind, name (and input shapes with
-- --by-shape): calls, total and average time in each, the change in ns and %, and a status (added,
-- removed, increased, decreased, unchanged within :tolerance %). The rows are each run's `tracedb ops`
-- rows, from ops' own pass over that run's database (analyzer/report/diff_gate.c copies them into
-- temp.diff_ops: queries/diff_ops_rows.sql): CPU-side rows (operators, ranges, runtime and driver calls,
-- each under its name's kind) compare calls and self CPU time as `ops` counts them, so nested ones are
-- not counted twice and PyTorch's merge of an only same-name child applies; kernels, memcpy and memset
-- compare device time per name. Sorted by absolute impact.
WITH
b AS (SELECT kind, name, shapes, calls, total FROM temp.diff_ops WHERE run = 'base'),
n AS (SELECT kind, name, shapes, calls, total FROM temp.diff_ops WHERE run = 'new'),
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
