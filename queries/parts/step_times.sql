-- step_times: every ProfilerStep#N duration of both runs (run = 'base' for main, 'new' for the attached
-- database), for diff_metric, diff_steps and diff_step_samples: the steps view's rows (schema/views.sql),
-- read from each run's tables (a database's own views are never run).
SELECT 'base' AS run, e.dur_ns FROM main.event e JOIN main.string s ON s.id = e.name_id
WHERE {sql:profiler_step}
UNION ALL
SELECT 'new', e.dur_ns FROM new.event e JOIN new.string s ON s.id = e.name_id
WHERE {sql:profiler_step}
