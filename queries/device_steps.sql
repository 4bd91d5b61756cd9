-- device_steps: the windows `tracedb device` gives a row each (per device of their trace): the ranges
-- named :steps (default every ProfilerStep#N) in the scope, for the C pass (analyzer/report/device_sweep.c).
-- A step runs on past the report's window (--from/--to/--range) only as far as the last of the windows
-- it meets: its span and its GPU work are then both what lies up to there (the work that starts in a
-- window, clipped to it).
SELECT p.trace_id, n.value, r.start_ns,
       min(r.start_ns + r.dur_ns, coalesce((SELECT max(w.end_ns) FROM scope_window w
                                            WHERE w.start_ns < r.start_ns + r.dur_ns AND w.end_ns > r.start_ns
                                              AND (w.trace_id IS NULL OR w.trace_id = p.trace_id)),
                                           r.start_ns + r.dur_ns))
FROM scope_event r JOIN string n ON n.id = r.name_id
JOIN thread t ON t.id = r.thread_id JOIN process p ON p.id = t.process_id
WHERE r.kind = {kind:range} AND r.name_id IN (SELECT id FROM string WHERE value = :steps OR value GLOB :steps);
