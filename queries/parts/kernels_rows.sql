rank_tot AS (SELECT rank, sum(total_ns) AS total FROM agg GROUP BY rank), -- each rank's or step's: one GROUP BY, not a window on every row
rows AS NOT MATERIALIZED ( -- (one arm of numbered reads it: not copied first)
  SELECT agg.rank, round(100.0 * total_ns / rt.total, 2) AS time_pct,
         total_ns, instances, CAST(round(avg_ns) AS INTEGER) AS avg_ns, CAST(round(med_ns) AS INTEGER) AS med_ns,
         min_ns, max_ns, CAST(round(stddev_ns) AS INTEGER) AS stddev_ns, s.value AS name, kd.name AS kind,
         CASE WHEN launch THEN l.grid_x || ',' || l.grid_y || ',' || l.grid_z END AS grid,
         CASE WHEN launch THEN l.block_x || ',' || l.block_y || ',' || l.block_z END AS block,
         CASE WHEN launch THEN l.registers END AS registers,
         CASE WHEN launch THEN l.shared_mem END AS shared_mem_bytes,
         CASE :sort WHEN 'instances' THEN instances WHEN 'avg_ns' THEN avg_ns WHEN 'med_ns' THEN med_ns
                    WHEN 'max_ns' THEN max_ns WHEN 'name' THEN 0 ELSE total_ns END AS sort_key
  FROM agg JOIN string s ON s.id = agg.name_id JOIN kind kd ON kd.id = agg.kind
  LEFT JOIN kernel_launch l ON l.event_id = agg.example LEFT JOIN rank_tot rt ON rt.rank IS agg.rank
),
numbered AS ( -- a row's place in its step, for a limit in each step: a window, so only then
  SELECT *, row_number() OVER (PARTITION BY rank ORDER BY sort_key DESC, name, grid, block, registers, shared_mem_bytes, kind)
         AS n_in_step FROM rows WHERE :by_step AND :limit >= 0
  UNION ALL
  SELECT *, NULL FROM rows WHERE NOT (:by_step AND :limit >= 0)
)
SELECT rank, time_pct, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns, name, kind,
       grid, block, registers, shared_mem_bytes
FROM numbered
WHERE NOT :by_step OR :limit < 0 OR n_in_step <= :limit
ORDER BY CASE WHEN :by_step THEN (SELECT min(start_ns) FROM scope_steps WHERE name = numbered.rank) END,
         sort_key DESC, rank, name, grid, block, registers, shared_mem_bytes, kind
LIMIT CASE WHEN :by_step THEN -1 ELSE :limit END
