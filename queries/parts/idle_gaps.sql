{sql:idle_kernels},
idle_g AS (
  SELECT rank, device, stream, s, launch_ns,
         lag(en) OVER (PARTITION BY rank, device, stream ORDER BY s, id) AS prev_end
  FROM idle_k
),
idle_gaps AS (
  SELECT rank, device, stream, CASE WHEN :negative_gaps THEN s - prev_end ELSE max(s - prev_end, 0) END AS gap,
         CASE WHEN launch_ns > prev_end THEN 'host' WHEN s - prev_end < :kernel_wait_ns THEN 'kernel' ELSE 'other' END AS cause
  FROM idle_g WHERE prev_end IS NOT NULL
)
