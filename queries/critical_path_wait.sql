-- critical_path_wait: a sync row's waits, from its args, as critical_path_rows.sql reads them: for
-- critical-path when it reads the rows from the import's pack (recorder/store/event_pack.h), which
-- holds no args. ?1: the row's id.
SELECT CASE WHEN json_valid(e.args) THEN coalesce(json_extract(e.args, '$.wait_on_stream'), -1) ELSE -1 END,
       CASE WHEN json_valid(e.args) THEN coalesce(json_extract(e.args, '$.wait_on_cuda_event_record_corr_id'), -1) ELSE -1 END
FROM event e WHERE e.id = ?1;
