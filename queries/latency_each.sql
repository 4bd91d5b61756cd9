-- latency_each: every instance latency.sql summarises, in time order (Furiosa's print_inferences):
-- its name, start (ns after the trace's first event) and duration. Same parameters as latency.sql.
SELECT CASE WHEN :by_rank THEN {sql:rank_of_event} END AS rank,
       s.value AS name, e.start_ns - coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS start_ns, e.dur_ns
FROM scope_event e JOIN string s ON s.id = e.name_id
WHERE {sql:latency_pick}
ORDER BY CASE :sort WHEN 'dur_ns' THEN -e.dur_ns ELSE e.start_ns END, e.id
LIMIT :limit;
