-- report_tracks: the HTML report's timeline tracks (analyzer/export/html_timeline.c): each thread or
-- stream with what names it (its trace's rank when the database holds several traces), in the
-- traces' own order.
SELECT t.id, p.trace_id, tr.rank, p.name, p.pid, t.tid, t.name,
       (SELECT count(*) FROM trace) > 1 AS several
FROM thread t JOIN process p ON p.id = t.process_id JOIN trace tr ON tr.id = p.trace_id
ORDER BY p.trace_id, coalesce(p.sort_index, p.id), p.id, coalesce(t.sort_index, t.id), t.id;
