-- order_rows.sql: every row of a database that does not depend on the order its trace's events came
-- in, ids replaced by what they point to (a name, a start), sorted: `make bench` hashes this output
-- (sqlite3 DB < bench/order_rows.sql | md5sum) to check that gen_trace's orders import to the same rows.
SELECT e.pid, e.tid, e.start_ns, e.dur_ns, e.name, e.kind, e.cat, e.self_ns, e.depth, e.correlation,
       e.external_id, e.device, e.stream, e.bytes, e.args, ps.value, p.start_ns, p.dur_ns, ls.value, l.start_ns,
       r.launch_ns
FROM events e JOIN event r ON r.id = e.id LEFT JOIN event p ON p.id = e.parent_id LEFT JOIN string ps ON ps.id = p.name_id
LEFT JOIN event l ON l.id = e.launch_id LEFT JOIN string ls ON ls.id = l.name_id
ORDER BY e.pid, e.tid, e.start_ns, e.dur_ns, e.name, e.args;
SELECT f.flow_id, s.value, f.phase, t.tid, f.ts_ns, f.bind_enclosing, e.name, e.start_ns
FROM flow f LEFT JOIN string s ON s.id = f.cat_id JOIN thread t ON t.id = f.thread_id LEFT JOIN events e ON e.id = f.event_id
ORDER BY 1, 2, 3, 4, 5, 6, 7, 8;
SELECT e.tid, e.start_ns, k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z, k.registers, k.shared_mem,
       k.blocks_per_sm, k.warps_per_sm, k.occupancy_pct
FROM kernel_launch k JOIN events e ON e.id = k.event_id ORDER BY 1, 2;
SELECT e.tid, e.start_ns, m.addr, m.total_allocated, m.total_reserved, m.device_type
FROM memory_event m JOIN events e ON e.id = m.event_id ORDER BY 1, 2, 3;
SELECT k.name, s.value, x.device, x.calls, x.total_ns, x.self_ns, x.min_ns, x.max_ns, x.self_device_ns,
       x.device_total_ns, x.self_cpu_mem, x.cpu_mem, x.self_device_mem, x.device_mem
FROM event_stats x JOIN kind k ON k.id = x.kind JOIN string s ON s.id = x.name_id ORDER BY 1, 2, 3;
SELECT device, first_ns, last_ns, busy_ns, run_ns, events FROM device_stats ORDER BY 1;
SELECT t.tid, s.value, c.ts_ns, c.value FROM counter c JOIN thread t ON t.id = c.thread_id JOIN string s ON s.id = c.name_id
ORDER BY 1, 2, 3;
SELECT p.pid, p.name, t.tid, t.name FROM thread t JOIN process p ON p.id = t.process_id ORDER BY 1, 3;
SELECT name, base_time_ns, rank, device_properties, distributed_info, extra, status, skipped_events, first_ns, last_ns
FROM trace;
