-- record_summary.sql: what a recording holds, for the line tracedb record prints when the program has ended
-- (cmd_record.c): events, threads, the import status, events dropped, and the steps its schedule saw (the
-- recorder's trace.extra.steps; NULL without a schedule).
SELECT (SELECT count(*) FROM event),
       (SELECT count(*) FROM thread),
       (SELECT value FROM meta WHERE key = 'import_status'),
       (SELECT coalesce(sum(skipped_events), 0) FROM trace),
       (SELECT sum(json_extract(extra, '$.steps')) FROM trace);
