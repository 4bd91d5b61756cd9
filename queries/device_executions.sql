-- device_executions: one row per execution of a device program (Furiosa's NPU Execution spans), as
-- Furiosa's print_npu_executions() lists them: its ids where the trace keeps them (Furiosa's records:
-- trace_id, span_id), the PE (device) and execution_index, its start (ns after the trace's first event),
-- total_ns = the execution's duration, run_ns = the summed durations of the operators (kernels: not
-- Execution, Load nor Store) directly inside it on its PE's track, io_wait_ns = total - run (negative
-- where its operators' durations add up past it; Furiosa's unsigned subtraction wraps there). An execution
-- no operator ran in is listed with run 0 (Furiosa's inner join leaves it out).
SELECT CASE WHEN :by_rank THEN {sql:rank_of_event} END AS rank,
       json_extract(e.args, '$.trace_id') AS trace_id, json_extract(e.args, '$.span_id') AS span_id,
       e.device AS pe_index, CAST(json_extract(e.args, '$.execution_index') AS INTEGER) AS execution_index,
       e.start_ns - coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS start_ns,
       e.dur_ns AS total_ns, coalesce(r.run_ns, 0) AS run_ns, e.dur_ns - coalesce(r.run_ns, 0) AS io_wait_ns
FROM scope_event e
LEFT JOIN (SELECT k.parent_id, sum(k.dur_ns) AS run_ns FROM event k
           WHERE k.kind = {kind:kernel} AND k.parent_id IN (SELECT id FROM event WHERE kind = {kind:execution})
           GROUP BY k.parent_id) r ON r.parent_id = e.id
WHERE e.kind = {kind:execution}
ORDER BY CASE :sort WHEN 'total_ns' THEN -e.dur_ns WHEN 'run_ns' THEN -coalesce(r.run_ns, 0)
                    WHEN 'io_wait_ns' THEN coalesce(r.run_ns, 0) - e.dur_ns ELSE e.start_ns END, e.id
LIMIT :limit;
