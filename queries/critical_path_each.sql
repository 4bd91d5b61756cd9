-- critical_path_each: the critical path's edges in path order (HTA's get_critical_path_breakdown, one
-- row per edge): what bounds it, its length, when it starts and ends (ns after the trace's start), and
-- the event its time belongs to (an operator's or kernel's own span or gap; for a launch delay, a
-- dependency or a sync edge, the event it leads to).
SELECT s.rank, s.seq, s.type, s.bound, s.dur_ns,
       s.from_ns - b.t0 AS from_ns, s.to_ns - b.t0 AS to_ns, s.event_id,
       (SELECT n.value FROM event e JOIN string n ON n.id = e.name_id WHERE e.id = s.event_id) AS name
FROM temp.critical_path_steps s,
     (SELECT coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS t0) b
ORDER BY s.rank, s.seq
LIMIT :limit;
