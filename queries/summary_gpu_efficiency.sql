-- summary_gpu_efficiency: one line per rank and device with GPU work, from the passes of HTA's analyses
-- in their default form, run by cmd_summary.c just before: the share of communication overlapped by
-- computation (tracedb overlap's: type_sweep.c, temp table type_stats), GPU idle time and its causes
-- over the device's streams (tracedb idle's, 30 us kernel wait: idle_sweep.c, idle_stats), and the
-- longest launch delay with its kernel (tracedb launches' pass: launch_sweep.c's launch_worst, each
-- name's longest delay on the rank and device; ties to the first name).
WITH i AS (
  SELECT rank, device, sum(idle_ns) AS idle_ns, sum(host_wait_ns) AS host, sum(kernel_wait_ns) AS kern,
         sum(other_ns) AS oth
  FROM temp.idle_stats GROUP BY rank, device
),
w AS (
  SELECT rank, device, delay_max_ns, s.value AS name,
         row_number() OVER (PARTITION BY rank, device ORDER BY delay_max_ns DESC, s.value) AS k
  FROM temp.launch_worst g JOIN string s ON s.id = g.name_id
)
SELECT NULL AS rank, o.rank AS trace_rank, o.device,
       CASE WHEN o.b > 0 THEN round(100.0 * (o.b + o.a - o.ab) / o.b, 2) END AS comm_overlap_pct, i.idle_ns,
       round(100.0 * i.host / nullif(i.idle_ns, 0), 2) AS host_wait_pct,
       round(100.0 * i.kern / nullif(i.idle_ns, 0), 2) AS kernel_wait_pct,
       round(100.0 * i.oth / nullif(i.idle_ns, 0), 2) AS other_pct,
       w.delay_max_ns AS worst_launch_delay_ns, w.name AS worst_launch_delay_kernel
FROM temp.type_stats o
LEFT JOIN i ON i.rank IS o.rank AND i.device IS o.device
LEFT JOIN w ON w.rank IS o.rank AND w.device IS o.device AND w.k = 1
ORDER BY o.rank, o.device;
