-- latency_pick: which events (e, named s) latency.sql and latency_each.sql take, by :mode ('name': the
-- names it matches as written; where none does, in any case, as Furiosa's Inference and a README's
-- inference are one name, but a label "inference" beside Furiosa's Inference spans is not one of them)
CASE :mode
  WHEN 'steps' THEN e.kind = {kind:range} AND s.value GLOB 'ProfilerStep#[0-9]*'
  WHEN 'name' THEN CASE WHEN (SELECT EXISTS (SELECT 1 FROM string WHERE value = :pattern OR value GLOB :pattern))
                        THEN s.value = :pattern OR s.value GLOB :pattern
                        ELSE s.value = :pattern COLLATE NOCASE OR lower(s.value) GLOB lower(:pattern) END
  ELSE e.kind IN ({kind:op}, {kind:range}) AND e.depth = 0
       AND (:tid IS NULL OR e.thread_id IN (SELECT id FROM thread WHERE CAST(tid AS TEXT) = :tid))
END
