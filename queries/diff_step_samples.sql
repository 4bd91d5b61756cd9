-- diff_step_samples: every ProfilerStep#N duration in each run (run = 'base' or 'new'), the samples of
-- the Mann-Whitney U test that `tracedb diff --fail-above` makes for the step metrics.
{sql:step_times};
