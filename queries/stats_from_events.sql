-- stats_from_events: event_stats and device_stats of trace ?1 computed from its rows, for databases
-- whose events arrived with their nesting already known (the live recorder) rather than through the
-- importer's in-memory sweep. The same definitions as ingest.c: device time and memory go to the
-- event whose runtime call launched the work (or that holds the [memory] event) and its ancestors.
INSERT INTO event_stats
WITH RECURSIVE
ev AS (SELECT e.* FROM event e JOIN thread t ON t.id = e.thread_id JOIN process p ON p.id = t.process_id
       WHERE p.trace_id = ?1),
gpu AS (SELECT a.parent_id AS op, g.dur_ns AS v FROM ev g JOIN event a ON a.id = g.launch_id
        WHERE g.kind IN (7, 8, 9) AND a.parent_id IS NOT NULL),
gpu_up(anc, v) AS (SELECT op, v FROM gpu UNION ALL
                   SELECT p.parent_id, gpu_up.v FROM gpu_up JOIN event p ON p.id = gpu_up.anc WHERE p.parent_id IS NOT NULL),
mem AS (SELECT e.parent_id AS op, m.device_type <> 0 AS dev, e.bytes AS v FROM ev e JOIN memory_event m ON m.event_id = e.id
        WHERE e.parent_id IS NOT NULL AND e.bytes IS NOT NULL),
mem_up(anc, dev, v) AS (SELECT op, dev, v FROM mem UNION ALL
                        SELECT p.parent_id, mem_up.dev, mem_up.v FROM mem_up JOIN event p ON p.id = mem_up.anc WHERE p.parent_id IS NOT NULL),
ds AS (SELECT op AS id, sum(v) AS v FROM gpu GROUP BY op),
dt AS (SELECT anc AS id, sum(v) AS v FROM gpu_up GROUP BY anc),
ms AS (SELECT op AS id, sum(CASE WHEN dev THEN 0 ELSE v END) AS cpu, sum(CASE WHEN dev THEN v ELSE 0 END) AS d FROM mem GROUP BY op),
mt AS (SELECT anc AS id, sum(CASE WHEN dev THEN 0 ELSE v END) AS cpu, sum(CASE WHEN dev THEN v ELSE 0 END) AS d FROM mem_up GROUP BY anc)
SELECT ?1, e.kind, e.name_id, e.device, count(*), sum(e.dur_ns), sum(e.self_ns), min(e.dur_ns), max(e.dur_ns),
       coalesce(sum(ds.v), 0), coalesce(sum(dt.v), 0), coalesce(sum(ms.cpu), 0), coalesce(sum(mt.cpu), 0),
       coalesce(sum(ms.d), 0), coalesce(sum(mt.d), 0)
FROM ev e LEFT JOIN ds ON ds.id = e.id LEFT JOIN dt ON dt.id = e.id LEFT JOIN ms ON ms.id = e.id LEFT JOIN mt ON mt.id = e.id
GROUP BY e.kind, e.name_id, e.device;

INSERT INTO device_stats
SELECT ?1, e.device, min(e.start_ns), max(e.start_ns + e.dur_ns), interval_union(e.start_ns, e.start_ns + e.dur_ns),
       interval_union(CASE WHEN e.kind = 7 AND c.class = 0 THEN e.start_ns END,
                      CASE WHEN e.kind = 7 AND c.class = 0 THEN e.start_ns + e.dur_ns END),
       count(*)
FROM event e JOIN thread t ON t.id = e.thread_id JOIN process p ON p.id = t.process_id
JOIN (SELECT s.id, CASE WHEN s.value GLOB 'Memcpy*' OR s.value GLOB 'hipMemcpy*' OR s.value GLOB '*Memset*'
                             OR s.value GLOB 'dma*' THEN 2
                        WHEN s.value GLOB 'nccl*' OR s.value GLOB '*ncclKernel*' OR s.value GLOB 'hccl*' THEN 1
                        ELSE 0 END AS class FROM string s) c ON c.id = e.name_id
WHERE p.trace_id = ?1 AND e.kind IN (7, 8, 9) AND e.device IS NOT NULL AND e.dur_ns > 0
GROUP BY e.device;

UPDATE trace SET first_ns = (SELECT min(e.start_ns) FROM event e JOIN thread t ON t.id = e.thread_id
                             JOIN process p ON p.id = t.process_id WHERE p.trace_id = ?1 AND e.kind <> 13),
                 last_ns = (SELECT max(e.start_ns + e.dur_ns) FROM event e JOIN thread t ON t.id = e.thread_id
                            JOIN process p ON p.id = t.process_id WHERE p.trace_id = ?1 AND e.kind <> 13)
WHERE id = ?1;
