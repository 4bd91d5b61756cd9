-- summary_trace: what was imported and the time it spans.
SELECT (SELECT value FROM meta WHERE key = 'source_file') AS source_file,
       (SELECT count(*) FROM trace) AS traces,
       (SELECT value FROM meta WHERE key = 'import_status') AS status,
       (SELECT sum(calls) FROM event_stats) AS events,
       max(last_ns) - min(first_ns) AS span_ns,
       (SELECT count(*) FROM thread) AS tracks
FROM trace;
