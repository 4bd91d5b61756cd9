idle_k AS (
  SELECT {sql:rank_of_event} AS rank, e.thread_id, e.device, e.stream, e.id, e.start_ns AS s, e.start_ns + e.dur_ns AS en, e.launch_ns
  FROM scope_gpu e -- the window's GPU work, its launch's start looked up once (scope.c)
  WHERE e.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}) AND e.stream IS NOT NULL
)
