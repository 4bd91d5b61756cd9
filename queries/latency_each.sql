-- latency_each: every instance latency.sql summarises, in time order (Furiosa's print_inferences):
-- its name, start (ns after the trace's first event) and duration. Same parameters as latency.sql.
SELECT CASE WHEN :by_rank THEN (SELECT t.rank FROM thread th JOIN process pr ON pr.id = th.process_id
                                JOIN trace t ON t.id = pr.trace_id WHERE th.id = e.thread_id) END AS rank,
       s.value AS name, e.start_ns - coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS start_ns, e.dur_ns
FROM scope_event e JOIN string s ON s.id = e.name_id
WHERE CASE :mode
        WHEN 'steps' THEN e.kind = {kind:range} AND s.value GLOB 'ProfilerStep#[0-9]*'
        WHEN 'name' THEN (s.value = :pattern OR s.value GLOB :pattern)
        ELSE e.kind IN ({kind:op}, {kind:range}) AND e.depth = 0
             AND (:tid IS NULL OR e.thread_id IN (SELECT id FROM thread WHERE CAST(tid AS TEXT) = :tid))
      END
ORDER BY CASE :sort WHEN 'dur_ns' THEN -e.dur_ns ELSE e.start_ns END, e.id
LIMIT :limit;
