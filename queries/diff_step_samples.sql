-- diff_step_samples: every ProfilerStep#N duration in each run (run = 'base' or 'new'), the samples of
-- the Mann-Whitney U test that `tracedb diff --fail-above` makes for the step metrics.
SELECT 'base' AS run, e.dur_ns FROM main.event e JOIN main.string n ON n.id = e.name_id
WHERE e.kind = {kind:range} AND n.value GLOB 'ProfilerStep#[0-9]*'
UNION ALL
SELECT 'new', e.dur_ns FROM new.event e JOIN new.string n ON n.id = e.name_id
WHERE e.kind = {kind:range} AND n.value GLOB 'ProfilerStep#[0-9]*';
