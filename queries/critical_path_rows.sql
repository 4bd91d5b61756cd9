-- critical_path_rows: one trace's events, for `tracedb critical-path`'s C pass (analyzer/report/
-- critical_path.c, cp_graph.c): everything HTA's dataframe holds of them. Instants, memory events, async
-- spans and the trace's own span never enter HTA's graph (no duration or no thread). A sync row's
-- wait_on_stream and wait_on_cuda_event_record_corr_id come from its args. No ORDER BY: the table scan
-- gives id order (an ORDER BY cost SQLite a sort here); the pass checks the order and sorts if not.
-- ?2 is 1 when the database holds one trace (every thread is its); ?3 and ?4 bound the ids, so that
-- two connections can read the halves of a large trace at once. NULLs come as -1, but launch_id's as
-- NULL (an event id may be negative). The kinds left out are one run of ids (critical_path.c asserts
-- it): a range test costs SQLite less than NOT IN's lookup. Each row goes to cp_row(), the pass's own
-- function (an aggregate's argument is evaluated only for the rows WHERE keeps): a row handed over in
-- one call costs SQLite a third less than a row stepped out and read a column at a time. ?5: the
-- pass's part, a pointer (sqlite3_bind_pointer).
SELECT count(cp_row(?5, e.id, e.thread_id, e.start_ns, e.dur_ns, coalesce(e.stream, -1), coalesce(e.device, -1),
       e.launch_id, e.name_id, coalesce(e.cat_id, -1), e.kind, coalesce(e.correlation, -1),
       CASE WHEN e.kind = {kind:sync} AND json_valid(e.args) THEN coalesce(json_extract(e.args, '$.wait_on_stream'), -1) ELSE -1 END,
       CASE WHEN e.kind = {kind:sync} AND json_valid(e.args)
            THEN coalesce(json_extract(e.args, '$.wait_on_cuda_event_record_corr_id'), -1) ELSE -1 END))
FROM event e
WHERE e.id BETWEEN ?3 AND ?4
  AND (?2 OR e.thread_id IN (SELECT th.id FROM thread th JOIN process p ON p.id = th.process_id WHERE p.trace_id = ?1))
  AND e.kind NOT BETWEEN {kind:memory} AND {kind:async};
