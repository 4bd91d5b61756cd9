idle_k AS (
  SELECT {sql:rank_of_event} AS rank, e.device, e.stream, e.id, e.start_ns AS s, e.start_ns + e.dur_ns AS en,
         (SELECT a.start_ns FROM main.event a WHERE a.id = e.launch_id) AS launch_ns
  FROM scope_event e
  WHERE e.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}) AND e.stream IS NOT NULL
)
