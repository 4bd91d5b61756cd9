-- summary_device: whole-trace utilisation per device, from device_stats (computed at import):
-- span from the first GPU event to the last, busy (any GPU work; overlaps count once), run
-- (computation kernels), IO-wait (busy - run: memory and communication not overlapped by
-- computation), idle (span - busy). `tracedb device` gives the same per step.
SELECT (SELECT rank FROM trace WHERE id = d.trace_id) AS rank, d.device,
       d.last_ns - d.first_ns AS span_ns, d.busy_ns, d.run_ns, d.busy_ns - d.run_ns AS io_wait_ns,
       d.last_ns - d.first_ns - d.busy_ns AS idle_ns,
       round(100.0 * d.run_ns / nullif(d.last_ns - d.first_ns, 0), 2) AS run_pct,
       round(100.0 * (d.busy_ns - d.run_ns) / nullif(d.last_ns - d.first_ns, 0), 2) AS io_wait_pct,
       round(100.0 * (d.last_ns - d.first_ns - d.busy_ns) / nullif(d.last_ns - d.first_ns, 0), 2) AS idle_pct
FROM device_stats d
ORDER BY d.trace_id, d.device;
