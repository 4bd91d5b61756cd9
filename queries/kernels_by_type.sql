-- kernels_by_type: HTA's kernel type breakdown (get_gpu_kernel_breakdown): per rank, the GPU time in
-- which exactly these kinds of work run: computation, communication, memory, and each overlap of them
-- ("computation overlapping communication", ...), each kind's intervals merged; and each one's share of
-- their sum (summed over ranks unless --by-rank, as HTA sums them), to 0.01%, or with :hta_rounding to
-- 0.1% as HTA's table rounds it (numpy's round of (time / sum) * 100). Other GPU work (syncs, waits),
-- which HTA leaves out, comes last with no share. Kinds by kernel_type(). The exclusive times come from
-- unions of the kinds' intervals by inclusion-exclusion (A: computation, B: communication, C: memory), all
-- eight from one sort of each rank's intervals' ends (analyzer/report/type_sweep.c, temp table type_stats).
WITH u AS (
  SELECT rank, a, b, c, ab, ac, bc, abc, other AS oth, n_a AS na, n_b AS nb, n_c AS nc, n_other AS no FROM temp.type_stats
),
r AS (
  SELECT rank, 1 AS hta, 'computation' AS kernel_type, abc - bc AS time_ns, na AS kernels FROM u
  UNION ALL SELECT rank, 1, 'communication', abc - ac, nb FROM u
  UNION ALL SELECT rank, 1, 'memory', abc - ab, nc FROM u
  UNION ALL SELECT rank, 1, 'computation overlapping communication', ac + bc - c - abc, NULL FROM u
  UNION ALL SELECT rank, 1, 'computation overlapping memory', ab + bc - b - abc, NULL FROM u
  UNION ALL SELECT rank, 1, 'communication overlapping memory', ab + ac - a - abc, NULL FROM u
  UNION ALL SELECT rank, 1, 'computation overlapping communication overlapping memory', a + b + c - ab - ac - bc + abc, NULL FROM u
  UNION ALL SELECT rank, 0, 'other', oth, no FROM u
),
t AS (
  SELECT CASE WHEN :by_rank THEN rank END AS rank, hta, kernel_type, sum(time_ns) AS time_ns, sum(kernels) AS kernels
  FROM r GROUP BY 1, hta, kernel_type
)
SELECT rank, kernel_type, time_ns,
       CASE WHEN hta THEN CASE WHEN :hta_rounding THEN hta_share(time_ns, (SELECT sum(time_ns) FROM t x WHERE x.hta AND x.rank IS t.rank), 1)
                          ELSE round(100.0 * time_ns / nullif((SELECT sum(time_ns) FROM t x WHERE x.hta AND x.rank IS t.rank), 0), 2) END END
         AS time_pct,
       kernels
FROM t
WHERE time_ns > 0 OR kernels > 0
ORDER BY rank, hta DESC, time_ns DESC
LIMIT :limit;
