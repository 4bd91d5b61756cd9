-- tracedb indexes: built once after the bulk load, one per report access path.
CREATE INDEX IF NOT EXISTS event_kind_name ON event(kind, name_id);       -- per-name aggregates (ops, kernels)
CREATE INDEX IF NOT EXISTS event_parent ON event(parent_id) WHERE parent_id IS NOT NULL; -- children of an event
CREATE INDEX IF NOT EXISTS event_kind_start ON event(kind, start_ns);     -- time windows per kind
CREATE INDEX IF NOT EXISTS event_launch ON event(launch_id) WHERE launch_id IS NOT NULL; -- GPU work of a launch
CREATE INDEX IF NOT EXISTS counter_name ON counter(name_id, ts_ns);
CREATE INDEX IF NOT EXISTS flow_id ON flow(flow_id);
ANALYZE;
