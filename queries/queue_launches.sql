-- queue_launches: the launches of `tracedb queue`, once each and unsorted: the C pass
-- (analyzer/report/queue_sweep.c) finds each track's rank, makes each stream's steps and sorts them itself.
-- Ids :lo to :hi: the pass reads two halves at once, each on its own connection.
WITH {sql:queue_steps}
SELECT thread_id, device, stream, call_ns, work_ns, id FROM queue_launch WHERE id >= :lo AND id <= :hi;
