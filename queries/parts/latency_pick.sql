-- latency_pick: which events (e, named s) latency.sql and latency_each.sql take, by :mode ('name': any
-- case, as Furiosa's Inference and a README's inference are one name)
CASE :mode
  WHEN 'steps' THEN e.kind = {kind:range} AND s.value GLOB 'ProfilerStep#[0-9]*'
  WHEN 'name' THEN (s.value = :pattern COLLATE NOCASE OR lower(s.value) GLOB lower(:pattern))
  ELSE e.kind IN ({kind:op}, {kind:range}) AND e.depth = 0
       AND (:tid IS NULL OR e.thread_id IN (SELECT id FROM thread WHERE CAST(tid AS TEXT) = :tid))
END
