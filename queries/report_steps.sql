-- report_steps: every ProfilerStep#N in time order, for the HTML report's timeline and step charts. Read from
-- the tables as the steps view (schema/views.sql) reads them: a database's own views are never run.
SELECT s.value AS name, e.start_ns, e.start_ns + e.dur_ns AS end_ns, e.dur_ns
FROM event e JOIN string s ON s.id = e.name_id
WHERE {sql:profiler_step}
ORDER BY e.start_ns, e.id;
