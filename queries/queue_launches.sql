-- queue_launches: the launches of `tracedb queue`, once each and unsorted: the C pass
-- (analyzer/report/queue_sweep.c) makes each stream's steps from them and sorts them itself.
WITH {sql:queue_steps}
SELECT rank, device, stream, call_ns, work_ns, id FROM queue_launch;
