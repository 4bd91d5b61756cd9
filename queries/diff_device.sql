-- diff_device: whole-trace device time of both runs side by side (device_stats), devices paired by
-- position (the first GPU of each run, then the second...: runs on other machines number them apart):
-- busy, run (computation), IO-wait and idle time, each run's and the change; each device's model last
-- (runs on other GPUs: tracedb diff warns on top).
WITH b AS (SELECT row_number() OVER (ORDER BY device) AS pos, device, last_ns - first_ns AS span, busy_ns AS busy,
                  run_ns AS run, busy_ns - run_ns AS io_wait, last_ns - first_ns - busy_ns AS idle,
                  (SELECT d.name FROM main.device d WHERE d.trace_id = s.trace_id AND d.id = s.device) AS gpu
           FROM main.device_stats s),
     n AS (SELECT row_number() OVER (ORDER BY device) AS pos, device, last_ns - first_ns AS span, busy_ns AS busy,
                  run_ns AS run, busy_ns - run_ns AS io_wait, last_ns - first_ns - busy_ns AS idle,
                  (SELECT d.name FROM new.device d WHERE d.trace_id = s.trace_id AND d.id = s.device) AS gpu
           FROM new.device_stats s)
SELECT NULL AS rank, b.device AS base_device, n.device AS new_device,
       b.busy AS base_busy_ns, n.busy AS new_busy_ns, n.busy - b.busy AS delta_busy_ns,
       b.run AS base_run_ns, n.run AS new_run_ns, n.run - b.run AS delta_run_ns,
       b.io_wait AS base_io_wait_ns, n.io_wait AS new_io_wait_ns, n.io_wait - b.io_wait AS delta_io_wait_ns,
       b.idle AS base_idle_ns, n.idle AS new_idle_ns, n.idle - b.idle AS delta_idle_ns,
       round(100.0 * b.idle / nullif(b.span, 0), 2) AS base_idle_pct, round(100.0 * n.idle / nullif(n.span, 0), 2) AS new_idle_pct,
       b.gpu AS base_gpu, n.gpu AS new_gpu
FROM b FULL OUTER JOIN n ON n.pos = b.pos
ORDER BY coalesce(b.pos, n.pos);
