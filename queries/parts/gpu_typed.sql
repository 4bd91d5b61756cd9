gpu_name_type AS MATERIALIZED ( -- kernel_type() once per name, not per event
  SELECT n.id, kernel_type(n.value) AS type FROM string n
  WHERE n.id IN (SELECT name_id FROM event_stats WHERE kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}, {kind:sync}))
),
g AS (
  SELECT {sql:rank_of_event} AS rank, e.device, t.type, e.start_ns AS s, e.start_ns + e.dur_ns AS e
  FROM scope_gpu e CROSS JOIN gpu_name_type t ON t.id = e.name_id -- events outside: one pass over them
  WHERE e.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}, {kind:sync})
)
