-- summary_latency: step latency (ProfilerStep#N as ProfilerStep*), the repeated top-level ranges, and,
-- in a trace with no steps, its inferences (Furiosa's print_summary population: host operators, cat
-- Nux, named Inference). The columns are Furiosa's summary's: count, min, max, mean, median and the 90, 95, 97, 99
-- and 99.9th percentiles (linear interpolation between closest ranks, numpy/pandas' default), cut to
-- whole ns as Furiosa's int() cuts them: latency.sql's figures.
WITH steps AS (SELECT EXISTS (SELECT 1 FROM event_stats st JOIN string s ON s.id = st.name_id
                              WHERE st.kind = {kind:range} AND s.value GLOB 'ProfilerStep#[0-9]*') AS any),
inference AS (SELECT id FROM string WHERE value = 'Inference'
              AND id IN (SELECT name_id FROM event_stats WHERE kind = {kind:op})),
r AS (
  SELECT CASE WHEN s.value GLOB 'ProfilerStep#[0-9]*' THEN 'ProfilerStep*' ELSE s.value END AS name, e.dur_ns
  FROM event e JOIN string s ON s.id = e.name_id
  WHERE e.kind = {kind:range} AND (s.value GLOB 'ProfilerStep#[0-9]*' OR e.depth = 0)
  UNION ALL
  SELECT s.value, e.dur_ns -- (no steps: the loop over the inference names is empty, no event read)
  FROM (SELECT id FROM inference WHERE NOT (SELECT any FROM steps)) i CROSS JOIN event e JOIN string s ON s.id = e.name_id
  WHERE e.name_id = i.id AND e.kind = {kind:op}
)
SELECT name, {sql:latency_stats}
FROM r
GROUP BY name
HAVING count(*) >= 2 OR name = 'ProfilerStep*' OR name = 'Inference'
ORDER BY name = 'ProfilerStep*' DESC, name = 'Inference' DESC, sum(dur_ns) DESC
LIMIT 5;
