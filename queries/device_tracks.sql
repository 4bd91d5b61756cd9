-- device_tracks: each track's trace, for `tracedb device`'s C pass (analyzer/report/device_sweep.c).
SELECT t.id, p.trace_id FROM thread t JOIN process p ON p.id = t.process_id;
