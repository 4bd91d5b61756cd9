-- idle: per rank, device and stream, the idle time between consecutive GPU kernels (memcpy and memset
-- included) and its cause, by HTA's rule (get_idle_time_breakdown): the gap from the previous kernel's
-- end (in start order) to the next kernel's start is host wait when that kernel's launch call started
-- after the previous kernel ended (the host had not enqueued it), else kernel wait when it is shorter
-- than :kernel_wait_ns (30 us: the overhead of launching many small kernels), else other. Unlike HTA, a
-- negative gap (kernels overlapping on one stream) is no idle time rather than a negative one, unless
-- :negative_gaps (HTA's sums). Shares to 0.01%, or with :hta_rounding to whole percents, as HTA rounds
-- its idle_time_ratio (numpy's round of the fraction to 2 decimals).
-- The sums come from one pass over each stream's work in start order (analyzer/report/idle_sweep.c,
-- temp table idle_stats, which summary's GPU efficiency line sums per rank and device).
WITH t AS (SELECT * FROM temp.idle_stats)
SELECT rank, device, stream, idle_ns, host_wait_ns, kernel_wait_ns, other_ns,
       CASE WHEN :hta_rounding THEN hta_share(host_wait_ns, idle_ns, 0) ELSE round(100.0 * host_wait_ns / nullif(idle_ns, 0), 2) END
         AS host_wait_pct,
       CASE WHEN :hta_rounding THEN hta_share(kernel_wait_ns, idle_ns, 0) ELSE round(100.0 * kernel_wait_ns / nullif(idle_ns, 0), 2) END
         AS kernel_wait_pct,
       CASE WHEN :hta_rounding THEN hta_share(other_ns, idle_ns, 0) ELSE round(100.0 * other_ns / nullif(idle_ns, 0), 2) END AS other_pct
FROM t
ORDER BY CASE :sort WHEN 'idle_ns' THEN -idle_ns ELSE 0 END, rank, device, stream
LIMIT :limit;
