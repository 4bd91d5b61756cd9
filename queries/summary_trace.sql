-- summary_trace: what was imported and the time it spans.
SELECT (SELECT value FROM meta WHERE key = 'source_file') AS source_file,
       (SELECT count(*) FROM trace) AS traces,
       (SELECT value FROM meta WHERE key = 'import_status') AS status,
       count(*) AS events,
       max(e.start_ns + e.dur_ns) - min(e.start_ns) AS span_ns,
       (SELECT count(*) FROM thread) AS tracks
FROM event e WHERE e.kind <> 13;
