-- queue_timeline: the queue length series of `tracedb queue`, one row per change (ns after the trace start).
WITH {sql:queue_steps}
SELECT rank, device, stream, ts - coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS ts_ns,
       queue
FROM queue_series
ORDER BY rank, device, stream, ts
LIMIT :limit;
