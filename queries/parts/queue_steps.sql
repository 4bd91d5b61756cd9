queue_launch AS (
  SELECT {sql:rank_of_event} AS rank, e.thread_id, e.device, e.stream, e.launch_ns AS call_ns, e.start_ns AS work_ns, e.id
  FROM scope_gpu e -- its launch joined once (scope.c)
  WHERE e.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}) AND e.stream IS NOT NULL
    AND e.launch_name_id IN (SELECT id FROM string WHERE tdb_launch_call(value)) -- sqlfuncs.c's list, the critical path's too
),
queue_step AS (
  SELECT rank, device, stream, call_ns AS ts, 1 AS d, id FROM queue_launch
  UNION ALL SELECT rank, device, stream, work_ns, -1, id FROM queue_launch
),
queue_series AS (
  SELECT rank, device, stream, ts, sum(d) OVER (w ROWS UNBOUNDED PRECEDING) AS queue, lead(ts) OVER w AS next_ts
  FROM queue_step
  WINDOW w AS (PARTITION BY rank, device, stream ORDER BY ts, d DESC, id)
)
