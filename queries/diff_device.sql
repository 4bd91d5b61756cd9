-- diff_device: whole-trace device time of both runs side by side (device_stats): shares of the span.
SELECT NULL AS rank, run, device, span_ns, busy_ns, run_ns, io_wait_ns, idle_ns,
       round(100.0 * run_ns / nullif(span_ns, 0), 2) AS run_pct,
       round(100.0 * io_wait_ns / nullif(span_ns, 0), 2) AS io_wait_pct,
       round(100.0 * idle_ns / nullif(span_ns, 0), 2) AS idle_pct
FROM (SELECT 'base' AS run, device, last_ns - first_ns AS span_ns, busy_ns, run_ns, busy_ns - run_ns AS io_wait_ns,
             last_ns - first_ns - busy_ns AS idle_ns FROM main.device_stats
      UNION ALL
      SELECT 'new', device, last_ns - first_ns, busy_ns, run_ns, busy_ns - run_ns, last_ns - first_ns - busy_ns
      FROM new.device_stats)
ORDER BY device, run;
