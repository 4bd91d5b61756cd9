-- kernels: GPU work per name, as `nsys stats --report cuda_gpu_kern_sum` shows it: share of the total
-- time of the rows listed (per rank with --by-rank), total, instances, average, median, min, max and
-- standard deviation (sample, n - 1; exact: the median and stddev aggregates are in C, sqlfuncs.c).
-- :kernel, :memcpy, :memset choose the kinds; :group_by 'launch' splits names by grid, block,
-- registers and shared memory. Statistics are integer ns (rounded). With :by_step the first column
-- holds the step (temp.scope_steps) the work's launch (or the work itself) starts in, and :limit keeps
-- the first rows of each step.
WITH k AS (
  SELECT CASE WHEN :by_rank THEN {sql:rank_of_event}
              WHEN :by_step THEN (SELECT {sql:step_of} FROM (SELECT coalesce(e.launch_ns, e.start_ns) AS step_t)) END AS rank,
         e.id, e.name_id, e.kind, e.dur_ns, l.event_id IS NOT NULL AS launch,
         CASE WHEN l.event_id IS NOT NULL THEN
           printf('%d %d %d %d %d %d %d %d', l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z,
                  l.registers, l.shared_mem) END AS launch_key
  FROM scope_event e LEFT JOIN kernel_launch l ON :group_by = 'launch' AND l.event_id = e.id
  WHERE (e.kind = {kind:kernel} AND :kernel) OR (e.kind = {kind:memcpy} AND :memcpy) OR (e.kind = {kind:memset} AND :memset)
),
agg AS (
  SELECT rank, name_id, kind, max(launch) AS launch, min(id) AS example,
         count(*) AS instances, sum(dur_ns) AS total_ns, avg(dur_ns) AS avg_ns, median(dur_ns) AS med_ns,
         min(dur_ns) AS min_ns, max(dur_ns) AS max_ns, stddev(dur_ns) AS stddev_ns
  FROM k GROUP BY rank, name_id, kind, launch_key /* one key: sorting on eight NULL columns cost more than the rest */
),
{sql:kernels_rows};
