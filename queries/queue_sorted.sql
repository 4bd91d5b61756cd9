-- queue_sorted: the steps of the launch queue of each rank, device and stream, in the order the C pass
-- (analyzer/report/queue_sweep.c) sums them: +1 at a launch call, -1 when the work it launched starts;
-- at equal times a launch before a start, then by event id (queue_timeline.sql's order).
WITH {sql:queue_steps}
SELECT rank, device, stream, ts, d FROM queue_step ORDER BY rank, device, stream, ts, d DESC, id;
