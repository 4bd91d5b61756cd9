-- summary_trace: what was imported and the time it spans: one source file, or how many (a merged job),
-- with the ranks and the world size when the traces name them (distributedInfo).
SELECT CASE WHEN count(*) = 1 THEN min(source_file)
            ELSE count(DISTINCT source_file) || ' files (' || min(source_file) || ', ...)' END AS source_file,
       count(*) AS traces,
       (SELECT value FROM meta WHERE key = 'import_status') AS status,
       (SELECT sum(calls) FROM event_stats) AS events,
       max(last_ns) - min(first_ns) AS span_ns,
       (SELECT count(*) FROM thread) AS tracks,
       CASE WHEN count(rank) > 0 THEN count(DISTINCT rank) END AS ranks,
       max(json_extract(distributed_info, '$.world_size')) AS world_size
FROM trace;
