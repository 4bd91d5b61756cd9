-- latency: duration statistics of repeated ranges, as Furiosa's print_summary gives them: count,
-- min, max, mean, median and the 90, 95, 97, 99 and 99.9th percentiles (linear interpolation between
-- closest ranks, numpy/pandas' default), integer ns cut to whole ns as Furiosa's int() cuts them.
-- :mode 'steps' takes ProfilerStep#N (as ProfilerStep*); 'name' the events of any kind named :pattern
-- (a name or a glob: ranges, operators, kernels, a Furiosa span category), as one population; 'top' the top-level ranges and operators (depth 0) on thread :tid
-- (every thread when NULL), per name: inferences.
WITH sel AS (
  SELECT CASE WHEN :by_rank THEN {sql:rank_of_event} END AS rank,
         CASE :mode WHEN 'steps' THEN 'ProfilerStep*' WHEN 'name' THEN :pattern ELSE s.value END AS name,
         e.dur_ns
  FROM scope_event e JOIN string s ON s.id = e.name_id
  WHERE {sql:latency_pick}
)
SELECT rank, name, {sql:latency_stats}
FROM sel
GROUP BY rank, name
ORDER BY CASE :sort WHEN 'count' THEN count(*) WHEN 'median_ns' THEN median(dur_ns) WHEN 'max_ns' THEN max(dur_ns)
                    WHEN 'name' THEN 0 ELSE sum(dur_ns) END DESC, rank, name
LIMIT :limit;
