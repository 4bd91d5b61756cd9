-- tracedb indexes: built once after the bulk load, only where a report needs one. Whole-trace
-- aggregates come from event_stats (filled while importing), so few indexes are needed.
CREATE INDEX IF NOT EXISTS event_ranges ON event(kind, name_id) WHERE kind = {kind:range};  -- steps and named ranges
CREATE INDEX IF NOT EXISTS counter_name ON counter(name_id, ts_ns);              -- counter series
