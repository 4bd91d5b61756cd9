-- report_timeline_rows: the events the HTML report's timeline draws, in no order (one scan): CPU
-- events down to depth 2 (a lane each) and all GPU work; columns: track, kind, depth, start, duration,
-- name, device, stream.
SELECT thread_id, kind, depth, start_ns, dur_ns, name_id, device, stream FROM event
WHERE dur_ns > 0 AND kind != {kind:trace} AND kind != {kind:gpu_range} AND kind != {kind:memory}
  AND (depth < 3 OR kind IN ({kind:kernel}, {kind:memcpy}, {kind:memset}, {kind:sync}, {kind:execution}));
