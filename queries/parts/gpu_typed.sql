SELECT {sql:rank_of_event} AS rank, e.device, kernel_type(s.value) AS type, e.start_ns AS s, e.start_ns + e.dur_ns AS e
  FROM scope_event e JOIN string s ON s.id = e.name_id
  WHERE e.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}, {kind:sync})
