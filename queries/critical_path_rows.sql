-- critical_path_rows: one trace's events in file (id) order, for `tracedb critical-path`'s C pass
-- (analyzer/report/critical_path.c, cp_graph.c): everything HTA's dataframe holds of them. Instants,
-- memory events, async spans and the trace's own span never enter HTA's graph (no duration or no
-- thread). A sync row's wait_on_stream and wait_on_cuda_event_record_corr_id come from its args.
SELECT e.id, e.thread_id, e.start_ns, e.dur_ns, coalesce(e.stream, -1), coalesce(e.device, -1), e.launch_id,
       e.name_id, e.cat_id, e.kind = {kind:sync}, coalesce(e.correlation, -1),
       CASE WHEN e.kind = {kind:sync} AND json_valid(e.args) THEN coalesce(json_extract(e.args, '$.wait_on_stream'), -1) ELSE -1 END,
       CASE WHEN e.kind = {kind:sync} AND json_valid(e.args) THEN coalesce(json_extract(e.args, '$.wait_on_cuda_event_record_corr_id'), -1) ELSE -1 END
FROM event e
WHERE e.thread_id IN (SELECT th.id FROM thread th JOIN process p ON p.id = th.process_id WHERE p.trace_id = ?1)
  AND e.kind NOT IN ({kind:memory}, {kind:instant}, {kind:trace}, {kind:async})
ORDER BY e.id;
