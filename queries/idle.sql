-- idle: per rank, device and stream, the idle time between consecutive GPU kernels (memcpy and memset
-- included) and its cause, by HTA's rule (get_idle_time_breakdown): the gap from the previous kernel's
-- end (in start order) to the next kernel's start is host wait when that kernel's launch call started
-- after the previous kernel ended (the host had not enqueued it), else kernel wait when it is shorter
-- than :kernel_wait_ns (30 us: the overhead of launching many small kernels), else other. Unlike HTA, a
-- negative gap (kernels overlapping on one stream) is no idle time rather than a negative one, unless
-- :negative_gaps (HTA's sums).
WITH k AS (
  SELECT {sql:rank_of_event} AS rank, e.device, e.stream, e.id, e.start_ns AS s, e.start_ns + e.dur_ns AS en,
         (SELECT a.start_ns FROM main.event a WHERE a.id = e.launch_id) AS launch_ns
  FROM scope_event e
  WHERE e.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}) AND e.stream IS NOT NULL
),
g AS (
  SELECT rank, device, stream, s, launch_ns,
         lag(en) OVER (PARTITION BY rank, device, stream ORDER BY s, id) AS prev_end
  FROM k
),
c AS (
  SELECT rank, device, stream, CASE WHEN :negative_gaps THEN s - prev_end ELSE max(s - prev_end, 0) END AS gap,
         CASE WHEN launch_ns > prev_end THEN 'host' WHEN s - prev_end < :kernel_wait_ns THEN 'kernel' ELSE 'other' END AS cause
  FROM g WHERE prev_end IS NOT NULL
),
t AS (
  SELECT rank, device, stream, sum(gap) AS idle_ns,
         sum(CASE cause WHEN 'host' THEN gap ELSE 0 END) AS host_wait_ns,
         sum(CASE cause WHEN 'kernel' THEN gap ELSE 0 END) AS kernel_wait_ns,
         sum(CASE cause WHEN 'other' THEN gap ELSE 0 END) AS other_ns
  FROM c GROUP BY rank, device, stream
)
SELECT rank, device, stream, idle_ns, host_wait_ns, kernel_wait_ns, other_ns,
       round(100.0 * host_wait_ns / nullif(idle_ns, 0), 2) AS host_wait_pct,
       round(100.0 * kernel_wait_ns / nullif(idle_ns, 0), 2) AS kernel_wait_pct,
       round(100.0 * other_ns / nullif(idle_ns, 0), 2) AS other_pct
FROM t
ORDER BY CASE :sort WHEN 'idle_ns' THEN -idle_ns ELSE 0 END, rank, device, stream
LIMIT :limit;
