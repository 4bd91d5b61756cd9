-- step_of: the step (temp.scope_steps) an instant step_t falls in, the latest to start of those holding
-- it: an index range, not a scan of every step (steps start no earlier than step_t - the longest step).
-- Used as (SELECT, this part, FROM (SELECT <time> AS step_t)).
(SELECT st.name FROM scope_steps st
 WHERE st.start_ns <= step_t AND st.end_ns > step_t
   AND st.start_ns > step_t - (SELECT max(end_ns - start_ns) FROM scope_steps)
 ORDER BY st.start_ns DESC, st.name LIMIT 1)
