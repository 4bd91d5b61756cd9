-- report_steps: every ProfilerStep#N in time order, for the HTML report's timeline and step charts.
SELECT name, start_ns, end_ns, dur_ns FROM steps ORDER BY start_ns, id;
