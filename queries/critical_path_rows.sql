-- critical_path_rows: one trace's events, for `tracedb critical-path`'s C pass (analyzer/report/
-- critical_path.c, cp_graph.c): everything HTA's dataframe holds of them. Instants, memory events, async
-- spans and the trace's own span never enter HTA's graph (no duration or no thread). A sync row's
-- wait_on_stream and wait_on_cuda_event_record_corr_id come from its args. No ORDER BY: the table scan
-- gives id order (an ORDER BY cost SQLite a sort here); the pass checks the order and sorts if not.
SELECT e.id, e.thread_id, e.start_ns, e.dur_ns, e.stream, e.device, e.launch_id, e.name_id, e.cat_id, e.kind,
       e.correlation,
       CASE WHEN e.kind = {kind:sync} AND json_valid(e.args) THEN json_extract(e.args, '$.wait_on_stream') END,
       CASE WHEN e.kind = {kind:sync} AND json_valid(e.args) THEN json_extract(e.args, '$.wait_on_cuda_event_record_corr_id') END
FROM event e
WHERE e.thread_id IN (SELECT th.id FROM thread th JOIN process p ON p.id = th.process_id WHERE p.trace_id = ?1)
  AND e.kind NOT IN ({kind:memory}, {kind:instant}, {kind:trace}, {kind:async});
