-- device_executions: one row per execution of a device program (Furiosa's NPU Execution spans), as
-- Furiosa's print_npu_executions() lists them: its ids where the trace keeps them (Furiosa's records:
-- trace_id, span_id), the PE (device) and execution_index, its start (ns after the trace's first event),
-- total_ns = the execution's duration, run_ns = the summed durations of its operators (kernels: not
-- Execution, Load nor Store) at any depth inside it on its PE's track (inside a Load or another operator
-- too: Furiosa sums every row whose parent span is the execution, overlapping or not), io_wait_ns =
-- total - run (negative where its operators' durations add up past it; Furiosa's unsigned subtraction
-- wraps there). An execution no operator ran in is listed with run 0 (Furiosa's inner join leaves it out).
-- Each operator climbs its parents to the nearest execution (a few steps, by primary key).
WITH RECURSIVE up(dur_ns, at) AS (
  SELECT k.dur_ns, k.parent_id FROM event k WHERE k.kind = {kind:kernel} AND k.parent_id IS NOT NULL
    AND EXISTS (SELECT 1 FROM event_stats WHERE kind = {kind:execution})
  UNION ALL
  SELECT up.dur_ns, p.parent_id FROM up JOIN event p ON p.id = up.at
  WHERE p.kind <> {kind:execution} AND p.parent_id IS NOT NULL
),
r AS (SELECT up.at AS parent_id, sum(up.dur_ns) AS run_ns FROM up JOIN event x ON x.id = up.at
      WHERE x.kind = {kind:execution} GROUP BY up.at)
SELECT CASE WHEN :by_rank THEN {sql:rank_of_event} END AS rank,
       json_extract(e.args, '$.trace_id') AS trace_id, json_extract(e.args, '$.span_id') AS span_id,
       e.device AS pe_index, CAST(json_extract(e.args, '$.execution_index') AS INTEGER) AS execution_index,
       e.start_ns - coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS start_ns,
       e.dur_ns AS total_ns, coalesce(r.run_ns, 0) AS run_ns, e.dur_ns - coalesce(r.run_ns, 0) AS io_wait_ns
FROM scope_event e
LEFT JOIN r ON r.parent_id = e.id
WHERE e.kind = {kind:execution}
ORDER BY CASE :sort WHEN 'total_ns' THEN -e.dur_ns WHEN 'run_ns' THEN -coalesce(r.run_ns, 0)
                    WHEN 'io_wait_ns' THEN coalesce(r.run_ns, 0) - e.dur_ns ELSE e.start_ns END, e.id
LIMIT :limit;
