-- critical_path_each: the critical path's edges in path order (HTA's get_critical_path_breakdown, one
-- row per edge): what bounds it, its length, when it starts and ends (ns after the trace's start), and
-- the event its time belongs to (an operator's or kernel's own span or gap; for a launch delay, a
-- dependency or a sync edge, the event it leads to). The C pass (analyzer/report/critical_path.c) writes
-- the edges in the order they print: by rank, then trace (two traces of one rank one after the other),
-- then seq; and each with its event's name id, NULL where that is no integer (a stranger's database:
-- then the name is looked up through the event, as SQL compares it).
SELECT s.rank, s.seq, s.type, s.bound, s.dur_ns,
       s.from_ns - b.t0 AS from_ns, s.to_ns - b.t0 AS to_ns, s.event_id,
       CASE WHEN s.name_id IS NOT NULL THEN (SELECT n.value FROM string n WHERE n.id = s.name_id)
            ELSE (SELECT n.value FROM event e JOIN string n ON n.id = e.name_id WHERE e.id = s.event_id) END AS name
FROM temp.critical_path_steps s,
     (SELECT coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event)) AS t0) b
ORDER BY s.rowid
LIMIT :limit;
