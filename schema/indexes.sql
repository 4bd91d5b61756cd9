-- tracedb indexes: built once after the bulk load, only where a report needs one. Whole-trace
-- aggregates come from event_stats (filled while importing), so few indexes are needed. The range index
-- is in indexes_early.sql: a new database gets it with its schema.
CREATE INDEX IF NOT EXISTS counter_name ON counter(name_id, ts_ns);              -- counter series
