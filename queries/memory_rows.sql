-- memory_rows: the scope's [memory] events, unsorted, for `tracedb memory`'s C pass
-- (analyzer/report/memory_sweep.c): trace, device type and device (the group), start and id (the order),
-- bytes (negative: a free), address, the allocator's totals when given, and the enclosing operator.
SELECT p.trace_id, mm.device_type, e.device, e.start_ns, e.id, e.bytes, mm.addr, mm.total_allocated, mm.total_reserved,
       e.parent_id
FROM memory_event mm JOIN scope_event e ON e.id = mm.event_id
JOIN thread t ON t.id = e.thread_id JOIN process p ON p.id = t.process_id;
