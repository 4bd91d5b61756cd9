-- step_times: every ProfilerStep#N duration of both runs (run = 'base' for main, 'new' for the attached
-- database), for diff_metric, diff_steps and diff_step_samples: each run's steps view (schema/views.sql).
SELECT 'base' AS run, dur_ns FROM main.steps
UNION ALL
SELECT 'new', dur_ns FROM new.steps
