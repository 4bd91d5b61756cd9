-- summary_ops: the top operators by self CPU time, the key columns of ops.sql (the whole table:
-- `tracedb ops`). From event_stats. Parameter: :limit.
SELECT CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END AS name,
       sum(st.calls) AS calls, sum(st.self_ns) AS self_cpu_ns, sum(st.total_ns) AS cpu_total_ns,
       sum(st.self_device_ns) AS self_device_ns, sum(st.device_total_ns) AS device_total_ns
FROM event_stats st JOIN string s ON s.id = st.name_id
WHERE st.kind IN ({kind:op}, {kind:range}, {kind:runtime}, {kind:driver})
GROUP BY 1
ORDER BY self_cpu_ns DESC, name
LIMIT :limit;
