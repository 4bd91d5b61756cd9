-- device_rows: the GPU work of the scope for `tracedb device`'s C pass (analyzer/report/device_sweep.c),
-- unsorted: track, device, start, end, kind and name. The pass finds each track's trace (device_tracks.sql)
-- and classifies each distinct name once, as HTA does by name with the import's own rule
-- (device_time_class in recorder/store/device_time.c, as SQL function tdb_device_class, device_class.sql):
-- memcpy/memset events memory; a device's executions (Furiosa's NPU Execution spans) busy but not
-- computing: their operators are; any other by kernel_type(name) (util/kernel_type.c, the rule overlap
-- uses), run being its computation alone. (Joining both per row in SQL was a third of the report on 2 M events.)
SELECT e.thread_id, e.device, e.start_ns, e.start_ns + e.dur_ns, e.kind, e.name_id
FROM scope_event e
WHERE e.kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}, {kind:execution}) AND e.device IS NOT NULL AND e.dur_ns > 0;
