-- ops: one row per CPU-side event name, as PyTorch's key_averages() lists them: operators,
-- user ranges (record_function; ProfilerStep#N grouped as ProfilerStep*), runtime and driver calls.
-- self_cpu_ns is each event's duration minus its direct children's on the same thread, computed once
-- at import by a stack sweep (event.self_ns); cpu_total_ns adds whole durations, as PyTorch does.
-- Parameters: :sort (self_cpu_ns | cpu_total_ns | calls | name), :limit (-1 for all).
SELECT name,
       count(*) AS calls,
       sum(self_ns) AS self_cpu_ns,
       sum(dur_ns) AS cpu_total_ns
FROM (SELECT CASE WHEN s.value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE s.value END AS name,
             e.self_ns, e.dur_ns
      FROM event e JOIN string s ON s.id = e.name_id
      WHERE e.kind IN (1, 2, 5, 6))
GROUP BY name
ORDER BY CASE :sort WHEN 'calls' THEN calls
                    WHEN 'cpu_total_ns' THEN cpu_total_ns
                    WHEN 'name' THEN 0
                    ELSE self_cpu_ns END DESC,
         name
LIMIT :limit;
