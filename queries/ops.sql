-- ops: one row per CPU-side event name, as PyTorch's key_averages() lists them: operators,
-- user ranges (record_function; ProfilerStep#N grouped as ProfilerStep*), runtime and driver calls.
-- Self time is each event's duration minus its direct children's on the same thread, computed once at
-- import by a stack sweep (event.self_ns); CPU total adds whole durations, as PyTorch does.
-- Reads event_stats, the per-name sums the import keeps. Same numbers from the events themselves:
--   SELECT name, count(*), sum(self_ns), sum(dur_ns) FROM events WHERE kind IN ('op','range','runtime','driver') GROUP BY name
-- Parameters: :sort (self_cpu_ns | cpu_total_ns | calls | name), :limit (-1 for all).
SELECT name,
       sum(calls) AS calls,
       sum(self_ns) AS self_cpu_ns,
       sum(total_ns) AS cpu_total_ns
FROM (SELECT CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END AS name,
             st.calls, st.self_ns, st.total_ns
      FROM event_stats st JOIN string s ON s.id = st.name_id
      WHERE st.kind IN (1, 2, 5, 6))
GROUP BY name
ORDER BY CASE :sort WHEN 'calls' THEN sum(calls)
                    WHEN 'cpu_total_ns' THEN sum(total_ns)
                    WHEN 'name' THEN 0
                    ELSE sum(self_ns) END DESC,
         name
LIMIT :limit;
