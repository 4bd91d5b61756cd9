-- latency_each: every instance latency.sql summarises, in time order (Furiosa's print_inferences and
-- print_external_operators): its name, start (ns after the trace's first event) and duration; its
-- thread (the trace's tid) and, where the trace keeps them (Furiosa's records, its operators),
-- operator_index, trace_id and span_id. Same parameters as latency.sql.
SELECT CASE WHEN :by_rank THEN {sql:rank_of_event} END AS rank,
       s.value AS name, e.start_ns - coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS start_ns, e.dur_ns,
       (SELECT tid FROM thread WHERE id = e.thread_id) AS tid,
       CAST(json_extract(e.args, '$.operator_index') AS INTEGER) AS operator_index,
       json_extract(e.args, '$.trace_id') AS trace_id, json_extract(e.args, '$.span_id') AS span_id
FROM scope_event e JOIN string s ON s.id = e.name_id
WHERE {sql:latency_pick}
ORDER BY CASE :sort WHEN 'dur_ns' THEN -e.dur_ns ELSE e.start_ns END, e.id
LIMIT :limit;
