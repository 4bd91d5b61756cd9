-- summary_hta: one line per rank with GPU work, from HTA's analyses in their default form: the share of
-- communication overlapped by computation (tracedb overlap), GPU idle time and its causes over all
-- streams (tracedb idle, 30 us kernel wait), and the worst launch delay with its kernel (tracedb launches).
WITH {sql:gpu_typed},
o AS (SELECT rank, j ->> 1 AS comm, j ->> 0 AS comp, j ->> 3 AS either
      FROM (SELECT rank, type_unions(type, s, e) AS j FROM g GROUP BY rank)),
{sql:idle_gaps},
i AS (
  SELECT rank, sum(gap) AS idle_ns, sum(CASE cause WHEN 'host' THEN gap ELSE 0 END) AS host,
         sum(CASE cause WHEN 'kernel' THEN gap ELSE 0 END) AS kern, sum(CASE cause WHEN 'other' THEN gap ELSE 0 END) AS oth
  FROM idle_gaps GROUP BY rank
),
l AS ({sql:launch_pairs}),
w AS (SELECT rank, (SELECT value FROM string WHERE id = l.name_id) AS name, delay_ns,
             row_number() OVER (PARTITION BY rank ORDER BY delay_ns DESC, (SELECT value FROM string WHERE id = l.name_id)) AS k FROM l)
SELECT NULL AS rank, o.rank AS trace_rank, CASE WHEN o.comm > 0 THEN round(100.0 * (o.comm + o.comp - o.either) / o.comm, 2) END AS comm_overlap_pct,
       i.idle_ns, round(100.0 * i.host / nullif(i.idle_ns, 0), 2) AS host_wait_pct,
       round(100.0 * i.kern / nullif(i.idle_ns, 0), 2) AS kernel_wait_pct, round(100.0 * i.oth / nullif(i.idle_ns, 0), 2) AS other_pct,
       w.delay_ns AS worst_launch_delay_ns, w.name AS worst_launch_delay_kernel
FROM o LEFT JOIN i ON i.rank IS o.rank LEFT JOIN w ON w.rank IS o.rank AND w.k = 1
ORDER BY o.rank;
